# shellcheck shell=bash
# Shared helpers for the scripts in scripts/. Source it; do not run it.
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
#
# Provides: SB_ROOT (repository root), logging (sb_log, sb_warn, sb_die, sb_step),
# as_root, ensure_packages, ensure_venv, free_port, wait_for_port, wait_for_log,
# ensure_postgres DIR, stop_postgres DIR, SB_PG_BIN, and the one set-up every
# script shares (at the end): sb_on_exit, sb_release_bins, sb_private_postgres,
# sb_report_dir, sb_start_server, sb_flag_value, sb_bench_driver.

if [ -n "${SB_COMMON_SH_LOADED:-}" ]; then
  return 0
fi
SB_COMMON_SH_LOADED=1

SB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export SB_ROOT

# ---------------------------------------------------------------------------
# logging

sb_ts() { date +%H:%M:%S; }
sb_log() { printf '[%s %s] %s\n' "$(sb_ts)" "${SB_LOG_TAG:-switchboard}" "$*" >&2; }
sb_warn() { printf '[%s %s] warning: %s\n' "$(sb_ts)" "${SB_LOG_TAG:-switchboard}" "$*" >&2; }
sb_die() {
  printf '[%s %s] error: %s\n' "$(sb_ts)" "${SB_LOG_TAG:-switchboard}" "$*" >&2
  exit 1
}
sb_step() { printf '\n[%s %s] == %s\n' "$(sb_ts)" "${SB_LOG_TAG:-switchboard}" "$*" >&2; }

# Run a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    sb_die "need root (or sudo) to run: $*"
  fi
}

# ---------------------------------------------------------------------------
# system packages

# Packages the gateway needs to build, test and serve.
SB_BASE_PACKAGES=(libssl-dev libpq-dev zlib1g-dev libvips-dev pkg-config postgresql openssl python3-venv tzdata)
SB_APT_UPDATED=${SB_APT_UPDATED:-0}

# True when the Debian package is installed.
package_installed() {
  [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]
}

# ensure_packages [PKG...]: apt-get install whatever of PKG... (default: the base
# set) is not installed yet. Runs `apt-get update` once per process, and only when
# something is missing.
ensure_packages() {
  local pkgs=("$@") missing=() p
  [ ${#pkgs[@]} -gt 0 ] || pkgs=("${SB_BASE_PACKAGES[@]}")
  command -v dpkg-query >/dev/null 2>&1 || sb_die "not a Debian system (no dpkg-query); install by hand: ${pkgs[*]}"
  for p in "${pkgs[@]}"; do
    package_installed "$p" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  sb_log "installing missing Debian packages: ${missing[*]}"
  local apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
  if [ "$SB_APT_UPDATED" != 1 ]; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" update -qq
    SB_APT_UPDATED=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
  for p in "${missing[@]}"; do
    package_installed "$p" || sb_die "package $p did not install"
  done
}

# ---------------------------------------------------------------------------
# Python virtual environment for test tools (.build-venv/)

SB_VENV=${SB_VENV:-$SB_ROOT/.build-venv}
# Python packages the test suite and the peer checks need.
SB_VENV_PACKAGES=("websockets>=13,<16" "prometheus_client>=0.20,<1" "selenium>=4.15,<5" "pytest>=8,<9" "standardwebhooks>=1.1,<2")
# Packages installed without their dependencies, for a file they ship: axe-core 4.x (axe.min.js),
# which the browser tests inject through WebDriver. The package's own Playwright runner is not used.
SB_VENV_FILE_PACKAGES=("axe-playwright-python==0.1.8")

# ensure_venv: create $SB_VENV (if needed) with SB_VENV_PACKAGES and export
# SWITCHBOARD_TEST_PYTHON=$SB_VENV/bin/python.
ensure_venv() {
  local py
  if [ ! -x "$SB_VENV/bin/python" ] || ! "$SB_VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    rm -rf "$SB_VENV"
    py=$(command -v python3 || true)
    if [ -z "$py" ] || ! "$py" -m venv "$SB_VENV" >/dev/null 2>&1; then
      # Fall back to Debian's interpreter (python3-venv is in the base set).
      ensure_packages python3 python3-venv
      rm -rf "$SB_VENV"
      /usr/bin/python3 -m venv "$SB_VENV" || sb_die "cannot create a Python venv at $SB_VENV"
    fi
    sb_log "created Python venv $SB_VENV ($("$SB_VENV/bin/python" --version 2>&1))"
  fi
  # The venv records what was installed into it, so a changed package list installs again.
  local wanted="${SB_VENV_PACKAGES[*]} ${SB_VENV_FILE_PACKAGES[*]}"
  if [ "$(cat "$SB_VENV/.switchboard-packages" 2>/dev/null)" != "$wanted" ]; then
    sb_log "pip install ${SB_VENV_PACKAGES[*]} (and, without dependencies, ${SB_VENV_FILE_PACKAGES[*]}) into $SB_VENV"
    "$SB_VENV/bin/python" -m pip install -q --disable-pip-version-check "${SB_VENV_PACKAGES[@]}" ||
      sb_die "pip install into $SB_VENV failed"
    "$SB_VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "${SB_VENV_FILE_PACKAGES[@]}" ||
      sb_die "pip install --no-deps into $SB_VENV failed"
    printf '%s' "$wanted" >"$SB_VENV/.switchboard-packages"
  fi
  export SWITCHBOARD_TEST_PYTHON="$SB_VENV/bin/python"
}

# ---------------------------------------------------------------------------
# ports and readiness

# True when something accepts TCP connections on HOST:PORT.
port_open() {
  (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null
}

# free_port: print a TCP port on 127.0.0.1 that nothing uses right now, below
# the kernel's ephemeral range: a server started on it later (PostgreSQL,
# restarted on the same port) cannot find it taken as the source port of some
# outgoing connection, which thousands of test clients make likely.
free_port() {
  local low=32768 port i
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  [ "$low" -gt 11000 ] || low=32768
  for ((i = 0; i < 500; i++)); do
    port=$((10000 + RANDOM % (low - 10000)))
    if ! port_open 127.0.0.1 "$port" && port_bindable "$port"; then
      echo "$port"
      return 0
    fi
  done
  sb_die "no free TCP port found below $low"
}

# port_bindable PORT: whether a socket can bind 127.0.0.1:PORT now (python3 when
# present; without it, not listening is taken as free).
port_bindable() {
  command -v python3 >/dev/null || return 0
  python3 -c 'import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)' "$1" 2>/dev/null
}

# sb_wait_for TIMEOUT_S PID WHAT COMMAND...: wait until COMMAND succeeds; fail,
# saying WHAT was awaited, after TIMEOUT_S or as soon as PID (when not empty) exits.
sb_wait_for() {
  local timeout=$1 pid=$2 what=$3 deadline=$((SECONDS + $1))
  shift 3
  until "$@"; do
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      sb_warn "process $pid exited before $what"
      return 1
    fi
    [ "$SECONDS" -lt "$deadline" ] || { sb_warn "not within ${timeout}s: $what" && return 1; }
    sleep 0.2
  done
}

# wait_for_port HOST PORT [TIMEOUT_S] [PID]: wait until HOST:PORT accepts
# connections; fail early if PID (when given) exits.
wait_for_port() { sb_wait_for "${3:-60}" "${4:-}" "$1:$2 accepted connections" port_open "$1" "$2"; }

# wait_for_log FILE PATTERN [TIMEOUT_S] [PID]: wait until FILE has a line matching
# the extended regex PATTERN; fail early if PID (when given) exits.
wait_for_log() { sb_wait_for "${3:-60}" "${4:-}" "a line matching /$2/ in $1" log_has "$1" "$2"; }
log_has() { grep -Eq -- "$2" "$1" 2>/dev/null; }

# stop_pid PID [TIMEOUT_S]: SIGTERM a process we started, SIGKILL it after TIMEOUT_S.
stop_pid() {
  local pid=$1 timeout=${2:-10} deadline
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + timeout))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
  wait "$pid" 2>/dev/null || true
}

# ---------------------------------------------------------------------------
# private PostgreSQL
#
# A cluster lives in DIR/data, listens on 127.0.0.1:PORT (PORT remembered in
# DIR/port) and on a Unix socket in DIR/socket, logs to DIR/postgres.log. The
# server runs as the `postgres` user when we are root (initdb refuses root), as
# the current user otherwise. Authentication is `trust`: the cluster is for
# development and tests on this machine only.

SB_PG_BIN=${SB_PG_BIN:-}
if [ -z "$SB_PG_BIN" ]; then
  if [ -x /usr/lib/postgresql/15/bin/pg_ctl ]; then
    SB_PG_BIN=/usr/lib/postgresql/15/bin
  else
    SB_PG_BIN=$(find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
  fi
fi
SB_PG_USER=postgres
SB_PG_DB=switchboard

# Run a command as the user who owns the cluster.
pg_as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u "$SB_PG_USER" -- "$@"
  else
    "$@"
  fi
}

# pg_alt_dir DIR: the stand-in directory under /tmp for DIR (see pg_cluster_dir).
pg_alt_dir() {
  printf '%s/switchboard-pg-%s\n' "${TMPDIR:-/tmp}" "$(printf '%s' "$1" | cksum | cut -d' ' -f1)"
}

# pg_cluster_dir DIR: print the directory that really holds DIR's cluster. That is
# DIR itself unless the cluster's owner cannot reach DIR (e.g. the repository is
# under a mode-700 home directory); then a stable directory under /tmp is used,
# and DIR/WHERE says so. Prints nothing when the owner cannot reach DIR and no
# stand-in exists yet.
pg_cluster_dir() {
  local dir=$1 alt
  alt=$(pg_alt_dir "$dir")
  if [ -f "$alt/.for" ] && [ "$(cat "$alt/.for" 2>/dev/null)" = "$dir" ]; then
    echo "$alt"
  elif [ "$(id -u)" -ne 0 ]; then
    echo "$dir"
  elif runuser -u "$SB_PG_USER" -- test -w "$dir" -a -x "$dir" 2>/dev/null; then
    echo "$dir"
  fi
}

# Print PORT and socket directory of DIR's running cluster ("PORT SOCKDIR"), or
# fail when it is not running.
pg_running_info() {
  local cdir=$1 pidfile
  pidfile="$cdir/data/postmaster.pid"
  [ -f "$pidfile" ] || return 1
  pg_as_owner "$SB_PG_BIN/pg_ctl" status -D "$cdir/data" >/dev/null 2>&1 || return 1
  # postmaster.pid: line 4 port, line 5 socket directory
  printf '%s %s\n' "$(sed -n 4p "$pidfile")" "$(sed -n 5p "$pidfile")"
}

# SB_PG_SETTINGS for the benchmarks' durable PostgreSQL (fsync, synchronous_commit
# and full_page_writes keep their defaults: on). shared_buffers=2GB (of 24 GiB):
# with the 128MB default the backends of a long run spend it evicting dirty
# buffers themselves (each eviction first flushing WAL up to the page), which no
# production server would be sized for. max_wal_size=4GB (default 1GB): runs
# write up to about 1 GB of WAL, and a checkpoint would otherwise start inside one.
SB_BENCH_PG_SETTINGS="shared_buffers=2GB max_wal_size=4GB"

# harness_priority: set SB_HARNESS_NICE to the command prefix that runs a load
# harness at nice -5 (empty, with a warning, when this user may not raise a
# priority). A harness measures latency from each message's scheduled send
# time, so time it waits for the CPU behind PostgreSQL would count as the
# server's latency.
harness_priority() {
  SB_HARNESS_NICE=()
  # `nice` with no command prints the niceness it runs at.
  if [ "$(nice -n -5 nice 2>/dev/null)" = "-5" ]; then
    SB_HARNESS_NICE=(nice -n -5)
  else
    sb_warn "cannot raise the harness's priority (nice -5 needs root): the time it waits behind PostgreSQL counts as latency"
  fi
}

# smooth_writeback: for this script's run, make the kernel write dirty file pages
# as they come instead of in bursts: vm.dirty_background_bytes 16 MiB,
# vm.dirty_expire_centisecs 300, vm.dirty_writeback_centisecs 100, the old values
# restored at exit (a warning and the host's values when this user may not).
# PostgreSQL 15 grows a table by writing zeroed pages through the page cache and
# flushes them only at a checkpoint; with the kernel's defaults on a machine of
# 24 GiB (background writeback from 10% of memory) they are written when 30 s
# old, 50-95 MB at once, and a commit whose WAL flush waits behind that burst
# takes 100-500 ms. docs/operations.md, "The host's writeback", has the figures
# and recommends the same for a production database host.
SB_WRITEBACK_SETTINGS=(dirty_background_bytes=16777216 dirty_expire_centisecs=300 dirty_writeback_centisecs=100)
smooth_writeback() {
  local vm=/proc/sys/vm setting old
  # The background threshold is in bytes or a ratio, whichever was set last
  # (setting one zeroes the other): restore the one in use, after the others.
  old="dirty_expire_centisecs=$(cat $vm/dirty_expire_centisecs) dirty_writeback_centisecs=$(cat $vm/dirty_writeback_centisecs)"
  if [ "$(cat $vm/dirty_background_bytes)" != 0 ]; then
    old+=" dirty_background_bytes=$(cat $vm/dirty_background_bytes)"
  else
    old+=" dirty_background_ratio=$(cat $vm/dirty_background_ratio)"
  fi
  # Registered first, so that a setting half made is undone too.
  sb_on_exit "sb_write_vm $old"
  for setting in "${SB_WRITEBACK_SETTINGS[@]}"; do
    if ! sb_write_vm "$setting"; then
      sb_warn "cannot set the kernel's writeback (needs root): bursts of PostgreSQL's table growth may stall commits (docs/operations.md)"
      return 0
    fi
  done
}
# sb_write_vm NAME=VALUE...: writes each VALUE to /proc/sys/vm/NAME; false at the first that fails.
sb_write_vm() {
  local setting
  for setting in "$@"; do
    { printf '%s\n' "${setting#*=}" >"/proc/sys/vm/${setting%%=*}"; } 2>/dev/null || return 1
  done
}

# ensure_postgres DIR [--fast]: make sure a PostgreSQL cluster for DIR is running
# and has database `switchboard`; export SWITCHBOARD_DATABASE_URL (TCP form),
# SB_PG_PORT, SB_PG_SOCKET_DIR and SB_PG_DIR (the directory really used). A second
# call (from this or another process) reuses the running cluster. --fast turns off
# durability (fsync and friends): for throwaway test databases only. Extra server
# settings: SB_PG_SETTINGS (space-separated name=value).
ensure_postgres() {
  local dir=$1 fast=${2:-} cdir sockdir port info opts
  [ -n "$dir" ] || sb_die "ensure_postgres: no directory given"
  [ -x "$SB_PG_BIN/pg_ctl" ] || sb_die "PostgreSQL binaries not found (looked in ${SB_PG_BIN:-/usr/lib/postgresql/*/bin}); is the postgresql package installed?"
  if [ "$(id -u)" -eq 0 ]; then
    id "$SB_PG_USER" >/dev/null 2>&1 || sb_die "user $SB_PG_USER does not exist (it comes with the postgresql package)"
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  if [ "$(id -u)" -eq 0 ] && [ "$(stat -c %U "$dir")" != "$SB_PG_USER" ] && [ ! -f "$dir/WHERE" ]; then
    chown "$SB_PG_USER:" "$dir"
  fi
  cdir=$(pg_cluster_dir "$dir")
  if [ -z "$cdir" ]; then
    cdir=$(pg_alt_dir "$dir")
    sb_warn "user $SB_PG_USER cannot reach $dir (a parent directory is not traversable); keeping the cluster in $cdir instead"
    mkdir -p "$cdir"
    chmod 700 "$cdir"
    printf '%s\n' "$dir" >"$cdir/.for"
    printf 'The PostgreSQL cluster for this directory lives in %s\n' "$cdir" >"$dir/WHERE" 2>/dev/null || true
    chown "$SB_PG_USER:" "$cdir" "$cdir/.for"
  fi

  # The socket path must fit in sun_path (107 bytes) with ".s.PGSQL.NNNNN".
  sockdir="$cdir/socket"
  if [ $((${#sockdir} + 18)) -gt 100 ]; then
    sockdir="${TMPDIR:-/tmp}/sbpg-$(printf '%s' "$cdir" | cksum | cut -d' ' -f1)"
  fi

  if info=$(pg_running_info "$cdir"); then
    port=${info%% *}
    sb_log "PostgreSQL already running for $dir (port $port)"
  else
    if [ ! -f "$cdir/data/PG_VERSION" ]; then
      sb_log "initdb $cdir/data"
      rm -rf "$cdir/data"
      pg_as_owner mkdir -p "$cdir/data"
      pg_as_owner "$SB_PG_BIN/initdb" -D "$cdir/data" -U "$SB_PG_USER" --auth=trust \
        --encoding=UTF8 --locale=C.UTF-8 >"$cdir/initdb.log" 2>&1 ||
        { cat "$cdir/initdb.log" >&2; sb_die "initdb failed (log above)"; }
    fi
    pg_as_owner mkdir -p "$sockdir"
    [ "$(id -u)" -ne 0 ] || chown "$SB_PG_USER:" "$sockdir"
    chmod 700 "$sockdir" 2>/dev/null || pg_as_owner chmod 700 "$sockdir"
    port=$(cat "$cdir/port" 2>/dev/null || true)
    if [ -z "$port" ] || port_open 127.0.0.1 "$port"; then
      port=$(free_port)
    fi
    opts="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$sockdir"
    if [ "$fast" = --fast ]; then
      opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    local setting
    for setting in ${SB_PG_SETTINGS:-}; do opts="$opts -c $setting"; done
    sb_log "starting PostgreSQL ($cdir/data, 127.0.0.1:$port, socket $sockdir)"
    if ! pg_as_owner "$SB_PG_BIN/pg_ctl" start -D "$cdir/data" -w -t 60 -s \
      -l "$cdir/postgres.log" -o "$opts"; then
      tail -n 30 "$cdir/postgres.log" >&2 || true
      sb_die "PostgreSQL did not start (log: $cdir/postgres.log)"
    fi
    pg_as_owner sh -c "printf '%s\n' '$port' >'$cdir/port'"
  fi

  local i
  for ((i = 0; i < 100; i++)); do
    "$SB_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" && break
    sleep 0.2
  done
  "$SB_PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$port" || sb_die "PostgreSQL on 127.0.0.1:$port is not ready"

  if [ "$(psql -X -q -h 127.0.0.1 -p "$port" -U "$SB_PG_USER" -d postgres -tAc \
    "SELECT 1 FROM pg_database WHERE datname = '$SB_PG_DB'")" != 1 ]; then
    psql -X -q -h 127.0.0.1 -p "$port" -U "$SB_PG_USER" -d postgres -v ON_ERROR_STOP=1 \
      -c "CREATE DATABASE $SB_PG_DB" >/dev/null || sb_die "cannot create database $SB_PG_DB"
    sb_log "created database $SB_PG_DB"
  fi

  info=$(pg_running_info "$cdir") || sb_die "PostgreSQL for $dir stopped unexpectedly"
  export SB_PG_DIR="$cdir"
  export SB_PG_PORT="$port"
  export SB_PG_SOCKET_DIR="${info#* }"
  export SWITCHBOARD_DATABASE_URL="postgresql://$SB_PG_USER@127.0.0.1:$port/$SB_PG_DB"
}

# stop_postgres DIR: stop DIR's cluster if it runs (its files stay).
# restart_postgres DIR: restarts (pg_ctl restart -m fast) the server that
# ensure_postgres started in DIR, keeping its options (port, socket).
restart_postgres() {
  local dir cdir
  dir=$(cd "$1" && pwd)
  cdir=$(pg_cluster_dir "$dir")
  [ -n "$cdir" ] || cdir=$dir
  pg_as_owner "$SB_PG_BIN/pg_ctl" restart -D "$cdir/data" -m fast -w -t 60 -s -l "$cdir/postgres.log"
}

stop_postgres() {
  local dir=$1 cdir
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  cdir=$(pg_cluster_dir "$dir")
  [ -n "$cdir" ] || cdir=$dir
  [ -f "$cdir/data/postmaster.pid" ] || return 0
  if pg_as_owner "$SB_PG_BIN/pg_ctl" status -D "$cdir/data" >/dev/null 2>&1; then
    sb_log "stopping PostgreSQL ($cdir/data)"
    pg_as_owner "$SB_PG_BIN/pg_ctl" stop -D "$cdir/data" -m fast -w -t 60 -s ||
      sb_warn "pg_ctl stop failed for $cdir/data"
  fi
}

# ---------------------------------------------------------------------------
# the scripts' one set-up: clean-up on exit, release binaries, a private
# PostgreSQL, a report directory, servers started and stopped

# sb_on_exit COMMAND: evaluate COMMAND when the script exits, before the commands
# registered earlier (last in, first out). The first call installs the EXIT trap
# and makes SIGINT and SIGTERM exit 130 and 143 (not in an interactive shell that
# sourced this file). A command may change SB_EXIT_STATUS, the status the script
# then exits with.
SB_EXIT_HOOKS=()
sb_on_exit() {
  if [ ${#SB_EXIT_HOOKS[@]} -eq 0 ] && [[ $- != *i* ]]; then
    trap sb_run_exit_hooks EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
  fi
  SB_EXIT_HOOKS+=("$1")
}
sb_run_exit_hooks() {
  SB_EXIT_STATUS=$?
  set +e
  local i
  for ((i = ${#SB_EXIT_HOOKS[@]} - 1; i >= 0; i--)); do eval "${SB_EXIT_HOOKS[i]}"; done
  exit "$SB_EXIT_STATUS"
}

# sb_release_bins DIR PRODUCT...: sets bin to DIR (a --bin-dir: no build) or, when
# DIR is empty, builds the release PRODUCTs and sets bin to their directory. Dies
# unless each bin/PRODUCT is an executable.
sb_release_bins() {
  local dir=$1 product
  shift
  if [ -n "$dir" ]; then
    [ -d "$dir" ] || sb_die "--bin-dir: no directory $dir"
    bin=$(cd "$dir" && pwd)
    sb_log "using binaries in $bin (no build)"
  else
    sb_step "building $* (release)"
    for product in "$@"; do
      swift build --package-path "$SB_ROOT" -c release --product "$product" >&2 || sb_die "building $product failed"
    done
    bin=$(swift build --package-path "$SB_ROOT" -c release --show-bin-path)
  fi
  for product in "$@"; do
    [ -x "$bin/$product" ] || sb_die "no executable $bin/$product"
  done
}

# sb_work_dir TAG: sets work to a new directory ${TMPDIR:-/tmp}/sb-TAG.XXXXXX, mode
# 755 (the postgres user must reach work/pg), removed on exit with the cluster
# that work/pg holds (stopped first).
sb_work_dir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/sb-$1.XXXXXX")
  chmod 755 "$work"
  sb_on_exit "sb_remove_work '$work'"
}
sb_remove_work() {
  stop_postgres "$1/pg" >/dev/null 2>&1
  # As root the cluster's files belong to postgres (root removes them); otherwise to us.
  rm -rf "$1" "$(pg_alt_dir "$1/pg")"
}

# sb_private_postgres TAG [durable|bench|fast]: a fresh PostgreSQL in work/pg
# (sb_work_dir TAG first unless work is set), stopped and removed on exit;
# exports SWITCHBOARD_DATABASE_URL and the rest as ensure_postgres does.
#   durable  PostgreSQL's defaults (fsync, synchronous_commit, full_page_writes on)
#   bench    durable, with SB_BENCH_PG_SETTINGS (shared_buffers, max_wal_size)
#   fast     durability off: for throwaway test databases only
sb_private_postgres() {
  [ -n "${work:-}" ] || sb_work_dir "$1"
  case ${2:-durable} in
    durable)
      sb_step "starting a private PostgreSQL (durable settings)"
      ensure_postgres "$work/pg"
      ;;
    bench)
      sb_step "starting a private PostgreSQL with durable settings ($SB_BENCH_PG_SETTINGS)"
      SB_PG_SETTINGS=$SB_BENCH_PG_SETTINGS ensure_postgres "$work/pg"
      ;;
    fast) ensure_postgres "$work/pg" --fast ;;
    *) sb_die "sb_private_postgres: unknown mode $2" ;;
  esac
}

# sb_flag_value FLAG ARG...: print the value FLAG has among the script's ARGs
# (`FLAG VALUE` or `FLAG=VALUE`, the last one), nothing without it: for the one
# flag a script needs itself (--bin-dir) before it hands them all to a driver.
sb_flag_value() {
  local flag=$1 value= previous= arg
  shift
  for arg in "$@"; do
    if [ "$previous" = "$flag" ]; then value=$arg; elif [ "${arg#"$flag"=}" != "$arg" ]; then value=${arg#*=}; fi
    previous=$arg
  done
  printf '%s' "$value"
}

# sb_bench_driver NAME "PRODUCT..." ARG...: scripts/bench-latency, bench-abuse and
# bench-cluster, which are `loadtest NAME ARG...` with a set-up: the release
# PRODUCTs (those in --bin-dir when ARGs name one), ARGs checked first (a usage
# error or --help ends the script), the harness's priority and open-file limit,
# a fresh private PostgreSQL with the bench settings and .build-test/NAME emptied;
# the driver is told where all that is and the command line its report quotes.
sb_bench_driver() {
  local name=$1 products command_line="scripts/$1${3:+ ${*:3}}"
  read -r -a products <<<"$2"
  shift 2
  ensure_packages "${SB_BASE_PACKAGES[@]}" util-linux
  harness_priority
  ulimit -n "$(ulimit -Hn)"
  sb_release_bins "$(sb_flag_value --bin-dir "$@")" "${products[@]}"
  "$bin/loadtest" "$name" --check "$@" || exit
  sb_private_postgres "$name" bench
  sb_report_dir "$name"
  "$bin/loadtest" "$name" "$@" --bin-dir "$bin" --database-url "$SWITCHBOARD_DATABASE_URL" --work "$work" \
    --out "$out" --command "$command_line"
}

# sb_report_dir NAME: sets out to .build-test/NAME (relative when the script runs
# in SB_ROOT), emptied.
sb_report_dir() {
  out=.build-test/$1
  [ "$PWD" = "$SB_ROOT" ] || out=$SB_ROOT/$out
  rm -rf "$out"
  mkdir -p "$out"
}

# is_ready PORT: whether GET /readyz on 127.0.0.1:PORT answers 200.
is_ready() {
  (
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf 'GET /readyz HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$1" >&3
    IFS=' ' read -r -t 5 _ status _ <&3 && [ "$status" = 200 ]
  ) 2>/dev/null
}

# sb_start_server [--readyz] LABEL PORT LOG COMMAND...: starts COMMAND in the
# background (input /dev/null, output to LOG) and waits until it serves
# 127.0.0.1:PORT: LOG says `listening on` and the port accepts, or with --readyz
# GET /readyz answers 200 (within 60 s). Sets server_pid. Dies, after LOG's last
# lines, when the server does not come up. Servers still running at exit are
# stopped (SIGTERM, then SIGKILL after 20 s); sb_stop_server stops one earlier.
SB_SERVER_PIDS=()
sb_start_server() {
  local readyz=0 label port log ready=0
  [ "$1" != --readyz ] || { readyz=1 && shift; }
  label=$1 port=$2 log=$3
  shift 3
  if [ -z "${SB_SERVERS_HOOKED:-}" ]; then
    SB_SERVERS_HOOKED=1
    sb_on_exit sb_stop_servers
  fi
  "$@" </dev/null >"$log" 2>&1 &
  server_pid=$!
  SB_SERVER_PIDS+=("$server_pid")
  if [ "$readyz" = 0 ]; then
    wait_for_log "$log" 'listening on' 60 "$server_pid" && wait_for_port 127.0.0.1 "$port" 10 "$server_pid" && ready=1
  else
    sb_wait_for 60 "$server_pid" "GET /readyz answered 200" is_ready "$port" && ready=1
  fi
  if [ "$ready" = 0 ]; then
    tail -n 30 "$log" >&2
    sb_stop_server "$server_pid"
    sb_die "$label did not start serving 127.0.0.1:$port (log above: $log)"
  fi
  sb_log "$label: pid $server_pid, 127.0.0.1:$port (log $log)"
}

# sb_stop_server PID [TIMEOUT_S]: stop a server sb_start_server started (stop_pid).
sb_stop_server() {
  local pid=$1 kept=() p
  stop_pid "$pid" "${2:-20}"
  for p in ${SB_SERVER_PIDS[@]+"${SB_SERVER_PIDS[@]}"}; do
    [ "$p" = "$pid" ] || kept+=("$p")
  done
  SB_SERVER_PIDS=(${kept[@]+"${kept[@]}"})
}
sb_stop_servers() {
  local pid
  for pid in ${SB_SERVER_PIDS[@]+"${SB_SERVER_PIDS[@]}"}; do sb_stop_server "$pid"; done
}
