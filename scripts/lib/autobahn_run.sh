#!/usr/bin/env bash
# scripts/lib/autobahn_run.sh [options] WS_URL [CASE_PATTERN...]
# scripts/lib/autobahn_run.sh --install
#
# Runs the Autobahn|Testsuite fuzzing client (wstest -m fuzzingclient) against
# the WebSocket server listening at WS_URL (ws://HOST:PORT/PATH) and summarises
# the result. Installs the testsuite first if needed (scripts/lib/autobahn_install.sh).
# scripts/autobahn (and through it scripts/test) calls it against the gateway's echo endpoint.
#
# Case patterns are Autobahn's: an id ("6.4.1") or a wildcard ("9.*", "12.2.*");
# several may be given comma-separated. Without any, every case runs (1.* to 13.*).
#
#   -c, --cases PATS       cases to run (like the CASE_PATTERN arguments)
#   -x, --exclude PATS     cases to leave out, e.g. -x '12.*,13.*'
#   -o, --out DIR          output directory (default .build-test/autobahn): the
#                          spec DIR/fuzzingclient.json, wstest's output
#                          DIR/wstest.log, the report DIR/reports/servers/
#   -a, --agent NAME       the server's name in the report (default switchboard)
#       --timeout S        give up after S seconds in all (default 0: never)
#       --stall-timeout S  give up when wstest prints nothing for S seconds
#                          (default 1200, longer than the slowest case; 0: never)
#       --install          install the testsuite if needed, and stop
#       --reinstall        install it again (after a failed or damaged install)
#
# Prints the failed cases and, last, `autobahn: N passed, M failed` (see
# scripts/lib/autobahn_report.py for how cases are judged). Exit status: 0 all
# cases passed, 1 some case failed, 2 no verdict (bad arguments, install
# failed, server unreachable, wstest timed out or wrote no report).
set -euo pipefail

# shellcheck source=scripts/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# shellcheck source=scripts/lib/autobahn_install.sh
. "$SB_ROOT/scripts/lib/autobahn_install.sh"
SB_LOG_TAG=autobahn

# Errors before a verdict exit 2 (sb_die exits 1, which would read as "failed").
die() {
  sb_log "error: $*"
  exit 2
}
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

url='' out=$SB_ROOT/.build-test/autobahn agent=switchboard timeout=0 stall=1200 install_only=
cases=() excludes=()
# add_patterns ARRAY PATS: append the comma- or space-separated patterns PATS.
add_patterns() {
  local -n into=$1
  local pat pats
  IFS=', ' read -r -a pats <<<"$2"
  for pat in ${pats[@]+"${pats[@]}"}; do
    [[ "$pat" =~ ^[0-9]+(\.[0-9]+)*(\.\*)?$|^\*$ ]] || die "not a case pattern: '$pat' (e.g. 6.4.1, 9.*, *)"
    into+=("$pat")
  done
}
need_arg() { [ "$2" -ge 2 ] || die "$1 needs an argument"; }
while [ $# -gt 0 ]; do
  case $1 in
    -h | --help) usage; exit 0 ;;
    -c | --cases) need_arg "$1" $#; add_patterns cases "$2"; shift 2 ;;
    -x | --exclude) need_arg "$1" $#; add_patterns excludes "$2"; shift 2 ;;
    -o | --out) need_arg "$1" $#; out=$2; shift 2 ;;
    -a | --agent) need_arg "$1" $#; agent=$2; shift 2 ;;
    --timeout) need_arg "$1" $#; timeout=$2; shift 2 ;;
    --stall-timeout) need_arg "$1" $#; stall=$2; shift 2 ;;
    --install) install_only=if-needed; shift ;;
    --reinstall) install_only=force; shift ;;
    -*) die "unknown option $1 (see --help)" ;;
    *)
      if [ -z "$url" ]; then url=$1; else add_patterns cases "$1"; fi
      shift
      ;;
  esac
done
[[ "$timeout" =~ ^[0-9]+$ && "$stall" =~ ^[0-9]+$ ]] || die "timeouts are whole seconds"
[[ "$agent" =~ ^[A-Za-z0-9._-]+$ ]] || die "agent names are letters, digits, '.', '_' and '-'"

ensure_autobahn() { # a process of its own: errexit would not hold in a function called with `||`
  bash "$SB_ROOT/scripts/lib/autobahn_install.sh" "$@" || die "installing Autobahn|Testsuite failed"
}
if [ -n "$install_only" ]; then
  ensure_autobahn "--$install_only"
  sb_log "$AB_WSTEST: $("$AB_WSTEST" --autobahnversion | tr '\n' ' ')"
  exit 0
fi

[ -n "$url" ] || die "no WebSocket URL given (see --help)"
# ws://HOST[:PORT][/PATH], HOST a name, an IPv4 address or a bracketed IPv6 one.
url_form='^(wss?)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:([0-9]+))?(/[^"\[:space:]]*)?$'
[[ "$url" =~ $url_form ]] || die "not a ws:// URL: $url"
host=${BASH_REMATCH[2]}
port=${BASH_REMATCH[4]:-}
if [ -z "$port" ]; then
  port=80
  [ "${BASH_REMATCH[1]}" = ws ] || port=443
fi
host=${host#[}
host=${host%]}
[ ${#cases[@]} -gt 0 ] || cases=('*')

ensure_autobahn --if-needed

# wstest would wait forever for a server that refuses the connection.
port_open "$host" "$port" || die "nothing accepts connections at $host:$port ($url)"

mkdir -p "$out"
out=$(cd "$out" && pwd)
[[ "$out" != *[\"\\]* ]] || die "the output directory's path may not contain '\"' or '\\': $out"
rm -rf "$out/reports"
mkdir -p "$out/reports/servers"
spec=$out/fuzzingclient.json
log=$out/wstest.log
json_list() { # the arguments as a JSON list of strings (they need no escaping: checked above)
  local sep='' item
  printf '['
  for item in "$@"; do printf '%s"%s"' "$sep" "$item"; sep=', '; done
  printf ']'
}
cat >"$spec" <<EOF
{
  "outdir": "$out/reports/servers",
  "servers": [{"agent": "$agent", "url": "$url"}],
  "cases": $(json_list "${cases[@]}"),
  "exclude-cases": $(json_list ${excludes[@]+"${excludes[@]}"}),
  "exclude-agent-cases": {}
}
EOF

sb_log "wstest -m fuzzingclient against $url: cases ${cases[*]}${excludes[*]:+, excluding ${excludes[*]}}"
sb_log "spec $spec, output $log"
start=$SECONDS
(cd "$out" && PYTHONUNBUFFERED=1 exec "$AB_WSTEST" -m fuzzingclient -s "$spec") </dev/null >"$log" 2>&1 &
wstest_pid=$!
trap 'stop_pid "$wstest_pid" 5; exit 130' INT
trap 'stop_pid "$wstest_pid" 5; exit 143' TERM

# Watch wstest: progress every minute, and the two timeouts.
last_size=0 last_output=$SECONDS last_progress=$SECONDS why=
while kill -0 "$wstest_pid" 2>/dev/null; do
  sleep 1
  size=$(stat -c %s "$log" 2>/dev/null || echo 0)
  if [ "$size" != "$last_size" ]; then
    last_size=$size
    last_output=$SECONDS
  fi
  if [ "$stall" -gt 0 ] && [ $((SECONDS - last_output)) -ge "$stall" ]; then
    why="wstest printed nothing for ${stall}s (is the server stuck?)"
  elif [ "$timeout" -gt 0 ] && [ $((SECONDS - start)) -ge "$timeout" ]; then
    why="the run took longer than --timeout ${timeout}s"
  elif [ $((SECONDS - last_progress)) -ge 60 ]; then
    last_progress=$SECONDS
    total=$(sed -n 's/^Ok, will run \([0-9]*\) test cases.*/\1/p' "$log" | head -n 1)
    current=$(grep '^Running test case ID' "$log" | tail -n 1 | cut -d' ' -f5)
    sb_log "$(grep -c '^Running test case ID' "$log" || true) of ${total:-?} cases started" \
      "(now ${current:-none}), $((SECONDS - start))s"
  fi
  if [ -n "$why" ]; then
    stop_pid "$wstest_pid" 5
    current=$(grep '^Running test case ID' "$log" | tail -n 1 | cut -d' ' -f5)
    tail -n 5 "$log" >&2
    die "stopped after $((SECONDS - start))s: $why; last case started: ${current:-none}"
  fi
done
status=0
wait "$wstest_pid" || status=$?
trap - INT TERM

if [ ! -f "$out/reports/servers/index.json" ]; then
  tail -n 20 "$log" >&2
  die "wstest exited with status $status after $((SECONDS - start))s without a report (its output: $log)"
fi
[ "$status" -eq 0 ] || sb_warn "wstest exited with status $status; summarising its report anyway"
sb_log "wstest finished in $((SECONDS - start))s"
exec python3 "$SB_ROOT/scripts/lib/autobahn_report.py" "$out"
