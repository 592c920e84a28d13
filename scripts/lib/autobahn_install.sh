#!/usr/bin/env bash
# scripts/lib/autobahn_install.sh [--if-needed | --force]
#
# Installs Autobahn|Testsuite (PyPI autobahntestsuite, the `wstest` fuzzer) for
# scripts/lib/autobahn_run.sh: unless it is installed already (--if-needed, the
# default), or again (--force). Run it; sourcing it (after common.sh) only
# defines AB_HOME and AB_WSTEST (the wstest to run) and the functions.
#
# wstest runs only on Python 2.7, which Debian 12 no longer has. So the
# interpreter comes from Debian 11 (bullseye) packages, downloaded through an
# apt configuration of our own (the system's apt state is not touched) and
# unpacked with dpkg-deb -x; then pip 20.3.4, the last pip for Python 2.7,
# installs the testsuite with every dependency pinned (AB_PINS).
#
# Where: $SB_AUTOBAHN_HOME, by default /opt/switchboard-autobahn, or
# ~/.cache/switchboard-autobahn when /opt is not writable. Installing takes a
# minute or two and happens once: a stamp file records a finished install and a
# lock (flock) makes a second concurrent run wait instead of racing.
#
# Environment: SB_AUTOBAHN_HOME; SB_AUTOBAHN_DEBIAN_MIRROR and
# SB_AUTOBAHN_DEBIAN_SECURITY_MIRROR (default: the Debian mirrors of this
# machine's apt sources, else deb.debian.org; once bullseye leaves the mirrors,
# http://archive.debian.org/debian).

AB_VERSION=25.10.1

# The whole dependency set, as pip 20.3.4 resolves it on CPython 2.7.18, pinned
# so that a new release on PyPI cannot break the install. Two are held back on
# purpose: Automat (22.10.0 no longer imports on Python 2 but does not say so in
# its metadata) and Cython (only wsaccel's build needs it; 3.1 dropped Python 2).
AB_PINS=(
  attrs==21.4.0 autobahn==0.10.9 "autobahntestsuite==$AB_VERSION" Automat==20.2.0
  cffi==1.15.1 constantly==15.1.0 cryptography==3.3.2 Cython==3.0.12 enum34==1.1.10
  hyperlink==21.0.0 idna==2.10 incremental==16.10.1 ipaddress==1.0.23 Jinja2==2.11.3
  klein==17.10.0 linecache2==1.0.0 MarkupSafe==1.1.1 pyasn1==0.5.1
  pyasn1-modules==0.3.0 pycparser==2.21 PyHamcrest==1.10.1 pyOpenSSL==19.1.0
  service-identity==18.1.0 six==1.16.0 traceback2==1.4.0 Twisted==19.10.0
  txaio==2.1.0 typing==3.10.0.0 ujson==2.0.3 unittest2==1.1.0 Werkzeug==1.0.1
  wsaccel==0.6.6 zope.interface==4.6.0
)
# pip itself and what it builds with, for Python 2.7.
AB_BOOTSTRAP=(pip==20.3.4 setuptools==44.0.0 wheel==0.37.1)

# From bullseye: the interpreter, its standard library and headers (C
# extensions are compiled), and the two libraries it links that Debian 12 has
# only in newer, incompatible versions.
AB_BULLSEYE_DEBS=(python2.7 python2.7-minimal libpython2.7-minimal libpython2.7-stdlib
  libpython2.7-dev libssl1.1 libffi7)
# From the host (Debian 12): a C compiler and the rest of the interpreter's
# shared libraries.
AB_HOST_DEBS=(ca-certificates gcc libc6-dev libbz2-1.0 libcrypt1 libdb5.3 libexpat1
  libncursesw6 libnsl2 libreadline8 libsqlite3-0 libtinfo6 libtirpc3 zlib1g media-types)

# The stamp names everything that shapes the install: change a pin or a package
# and the next run installs again.
AB_STAMP="switchboard-autobahn 1 ${AB_PINS[*]} ${AB_BOOTSTRAP[*]} ${AB_BULLSEYE_DEBS[*]}"

ab_default_home() {
  local opt=/opt/switchboard-autobahn
  if [ -w "$opt" ] || { [ ! -e "$opt" ] && [ -w /opt ]; }; then
    echo "$opt"
  else
    echo "${XDG_CACHE_HOME:-$HOME/.cache}/switchboard-autobahn"
  fi
}
AB_HOME=${SB_AUTOBAHN_HOME:-$(ab_default_home)}
AB_WSTEST=$AB_HOME/bin/wstest

ab_log() { sb_log "autobahn install: $*"; }

# ab_wstest_works: true when AB_WSTEST starts and is the version we install.
ab_wstest_works() {
  [[ "$("$AB_WSTEST" --autobahnversion 2>/dev/null)" == *"TestSuite $AB_VERSION"* ]]
}

# ab_installed: true when the stamp matches and wstest starts.
ab_installed() {
  [ "$(cat "$AB_HOME/installed" 2>/dev/null)" = "$AB_STAMP" ] && ab_wstest_works
}

# ab_apt_mirror SUFFIX: the first URI in this machine's apt sources whose path
# ends in /SUFFIX (debian, debian-security); nothing if there is none.
ab_apt_mirror() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -v '^[[:space:]]*#' | grep -oE "https?://[^ ]+/$1/?( |\$)" | sed 's:[/ ]*$::' | head -n 1 || true
}

# ab_fetch_debs DIR: download AB_BULLSEYE_DEBS into DIR through a private apt
# configuration (its own sources, lists, cache and an empty dpkg status).
ab_fetch_debs() {
  local dest=$1 apt=$AB_HOME/apt main security
  main=${SB_AUTOBAHN_DEBIAN_MIRROR:-$(ab_apt_mirror debian)}
  main=${main:-http://deb.debian.org/debian}
  security=${SB_AUTOBAHN_DEBIAN_SECURITY_MIRROR:-$(ab_apt_mirror debian-security)}
  security=${security:-http://deb.debian.org/debian-security}
  rm -rf "$apt"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$dest"
  {
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $main bullseye main"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $security bullseye-security main"
  } >"$apt/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o Dir::Etc::Preferences=/dev/null -o Dir::Etc::PreferencesParts=/dev/null
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o Dir::State::status=/dev/null
    -o Acquire::Retries=3)
  # As root apt downloads as the _apt user, who may not write here.
  [ "$(id -u)" -ne 0 ] || opts+=(-o APT::Sandbox::User=root)
  ab_log "apt-get download (bullseye, $main): ${AB_BULLSEYE_DEBS[*]}"
  apt-get "${opts[@]}" -qq update >"$apt/update.log" 2>&1 ||
    { cat "$apt/update.log" >&2; sb_die "apt-get update of the bullseye sources failed (set SB_AUTOBAHN_DEBIAN_MIRROR?)"; }
  (cd "$dest" && apt-get "${opts[@]}" -qq download "${AB_BULLSEYE_DEBS[@]}") >"$apt/download.log" 2>&1 ||
    { cat "$apt/download.log" >&2; sb_die "apt-get download of the bullseye packages failed"; }
  rm -rf "$apt"
}

# ab_do_install: the install itself, under the lock.
ab_do_install() {
  local root=$AB_HOME/py27 debs=$AB_HOME/debs wheels=$AB_HOME/wheels libdir py deb pip3 script
  rm -f "$AB_HOME/installed"
  rm -rf "$root" "$debs" "$wheels" "${AB_HOME:?}/bin"
  if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
    sb_die "installing Autobahn|Testsuite needs Debian (apt-get, dpkg-deb)"
  fi
  ensure_packages "${AB_HOST_DEBS[@]}"

  ab_fetch_debs "$debs"
  mkdir -p "$root"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root" || sb_die "cannot unpack $deb"; done
  # An absolute link into the host's /etc (absent on Debian 12), not needed.
  rm -f "$root/usr/lib/python2.7/sitecustomize.py"
  libdir=$(dirname "$(find "$root/usr/lib" -name 'libssl.so.1.1' | head -n 1)")
  [ "$libdir" != . ] || sb_die "libssl.so.1.1 missing from the unpacked packages"

  # One wrapper runs the unpacked interpreter with its own libraries and nothing
  # of the user's Python set-up.
  mkdir -p "$AB_HOME/bin"
  py=$AB_HOME/bin/python2.7
  cat >"$py" <<EOF
#!/bin/sh
# CPython 2.7 from Debian 11 packages, for Autobahn|Testsuite (scripts/lib/autobahn_install.sh)
unset PYTHONHOME PYTHONPATH
export PYTHONNOUSERSITE=1 LD_LIBRARY_PATH="$libdir\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "$root/usr/bin/python2.7" "\$@"
EOF
  chmod 755 "$py"
  "$py" -c 'import ssl, hashlib, zlib, ctypes, sqlite3' || sb_die "the unpacked Python 2.7 does not work"

  # pip for Python 2.7 comes as a wheel, fetched by the host's Python 3 pip.
  pip3=(python3 -m pip)
  if ! python3 -m pip --version >/dev/null 2>&1; then
    ensure_packages python3 python3-pip
    pip3=(/usr/bin/python3 -m pip)
  fi
  ab_log "pip download ${AB_BOOTSTRAP[*]}"
  "${pip3[@]}" download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 2.7 \
    -d "$wheels" "${AB_BOOTSTRAP[@]}" || sb_die "could not download ${AB_BOOTSTRAP[*]} from PyPI"

  printf '%s\n' "${AB_PINS[@]}" "${AB_BOOTSTRAP[@]}" >"$AB_HOME/constraints.txt"
  ab_log "pip install autobahntestsuite==$AB_VERSION (Python 2.7, pinned; compiles a few C extensions)"
  (
    export PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONWARNINGS=ignore
    # The interpreter's build settings name the host's /usr/include, which has no Python 2 headers.
    export CFLAGS="-I$root/usr/include -I$root/usr/include/python2.7"
    "$py" "$(echo "$wheels"/pip-*.whl)/pip" install -q --no-warn-script-location --no-index --find-links "$wheels" "${AB_BOOTSTRAP[@]}" &&
      "$py" -m pip install -q --no-warn-script-location -c "$AB_HOME/constraints.txt" "autobahntestsuite==$AB_VERSION" &&
      "$py" -m pip check >/dev/null
  ) || sb_die "pip install of autobahntestsuite failed (output above)"

  script=$(find "$root/usr" -path '*/bin/wstest' -type f | head -n 1)
  [ -n "$script" ] || sb_die "pip installed no wstest script under $root/usr"
  cat >"$AB_WSTEST" <<EOF
#!/bin/sh
# Autobahn|Testsuite $AB_VERSION (scripts/lib/autobahn_install.sh)
export PYTHONWARNINGS=ignore
exec "$py" "$script" "\$@"
EOF
  chmod 755 "$AB_WSTEST"
  ab_wstest_works || sb_die "$AB_WSTEST does not start"
  "$py" -m pip freeze >"$AB_HOME/versions.txt" 2>/dev/null || true
  (cd "$debs" && ls -- *.deb) >>"$AB_HOME/versions.txt"
  printf '%s\n' "$AB_STAMP" >"$AB_HOME/installed"
  ab_log "installed $AB_WSTEST"
}

autobahn_install() {
  local force=0 fd
  case ${1:-} in
    --if-needed) ;;
    --force) force=1 ;;
    *) sb_die "autobahn_install: --if-needed or --force, not '${1:-}'" ;;
  esac
  if [ "$force" = 0 ] && ab_installed; then
    return 0
  fi
  mkdir -p "$AB_HOME" || sb_die "cannot create $AB_HOME (set SB_AUTOBAHN_HOME)"
  command -v flock >/dev/null || sb_die "flock (util-linux) is missing"
  exec {fd}>"$AB_HOME/lock"
  if ! flock -n "$fd"; then
    ab_log "another install into $AB_HOME is running; waiting for it (at most 30 minutes)"
    flock -w 1800 "$fd" || sb_die "timed out waiting for the lock on $AB_HOME/lock"
  fi
  # The run we waited for may have installed it already.
  if [ "$force" = 1 ] || ! ab_installed; then
    ab_log "installing Autobahn|Testsuite $AB_VERSION into $AB_HOME"
    ab_do_install
  fi
  exec {fd}>&-
}

# Run as a script (its own process, so that errexit holds throughout).
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  # shellcheck source=scripts/lib/common.sh
  . "$(dirname "${BASH_SOURCE[0]}")/common.sh"
  SB_LOG_TAG=autobahn
  autobahn_install "${1:---if-needed}"
fi
