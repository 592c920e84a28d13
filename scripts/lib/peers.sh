# shellcheck shell=bash
# Comparison peers for scripts/bench-transport: other WebSocket echo servers that
# serve the same route (/v1/echo on 127.0.0.1) as the gateway's echo endpoint.
# Source it after common.sh:
#
#   . scripts/lib/common.sh; . scripts/lib/peers.sh
#   start_hb_echo 9001        # sets HB_ECHO_PID (builds hb-echo first if needed)
#   start_node_ws_echo 9002   # sets NODE_WS_ECHO_PID
#   ...
#   stop_pid "$HB_ECHO_PID"; stop_pid "$NODE_WS_ECHO_PID"
#   build_echo_floor          # the reference floor: $SB_ECHO_FLOOR_BIN --port P
#   build_chat_floor          # the chat floor: $SB_CHAT_FLOOR_BIN --port P (scripts/bench-chat-floor)
#
# The start functions set variables, so call them directly, not in $(...).
# Logs: .build-test/peer-hb-echo.log, .build-test/peer-node-ws-echo.log.

# shellcheck source=scripts/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

SB_PEER_LOG_DIR=${SB_PEER_LOG_DIR:-$SB_ROOT/.build-test}

# --- Hummingbird 2 + hummingbird-websocket (LoadTests/HummingbirdEcho) ------------

SB_HB_PACKAGE=$SB_ROOT/LoadTests/HummingbirdEcho
SB_HB_SCRATCH=$SB_ROOT/.build-hummingbird
SB_HB_ECHO_BIN=$SB_HB_SCRATCH/release/hb-echo

# build_hb_echo: release-build hb-echo unless the binary is newer than its sources.
# The first build compiles SwiftNIO and Hummingbird: about 10 minutes on 2 cores.
build_hb_echo() {
  if [ -x "$SB_HB_ECHO_BIN" ] &&
    [ -z "$(find "$SB_HB_PACKAGE/Package.swift" "$SB_HB_PACKAGE/Sources" -newer "$SB_HB_ECHO_BIN" -type f 2>/dev/null)" ]; then
    return 0
  fi
  ensure_packages
  sb_log "building hb-echo (release; the first build takes ~10 minutes)"
  swift build -c release --package-path "$SB_HB_PACKAGE" --scratch-path "$SB_HB_SCRATCH" --product hb-echo ||
    sb_die "hb-echo build failed"
  [ -x "$SB_HB_ECHO_BIN" ] || sb_die "no binary at $SB_HB_ECHO_BIN"
}

# start_hb_echo PORT: start hb-echo on 127.0.0.1:PORT in the background, wait until
# it listens; sets HB_ECHO_PID.
start_hb_echo() {
  build_hb_echo
  mkdir -p "$SB_PEER_LOG_DIR"
  sb_start_server hb-echo "$1" "$SB_PEER_LOG_DIR/peer-hb-echo.log" "$SB_HB_ECHO_BIN" --port "$1"
  HB_ECHO_PID=$server_pid
}

# --- Node.js ws (Debian package node-ws) -------------------------------------------

SB_NODE_ECHO_JS=$SB_ROOT/LoadTests/node-ws-echo.js

# Debian's node-ws installs the module under /usr/share/nodejs, which a node that
# does not come from Debian (e.g. NodeSource's) does not search by default.
node_ws_env() {
  printf 'NODE_PATH=/usr/share/nodejs%s\n' "${NODE_PATH:+:$NODE_PATH}"
}

# ensure_node_ws: node-ws (and a node to run it: its dependency) installed.
ensure_node_ws() {
  ensure_packages node-ws
  command -v node >/dev/null 2>&1 || ensure_packages nodejs
  env "$(node_ws_env)" node -e 'require("ws")' 2>/dev/null ||
    sb_die "node cannot load the ws module from /usr/share/nodejs"
}

# start_node_ws_echo PORT: start the ws echo server on 127.0.0.1:PORT in the
# background, wait until it listens; sets NODE_WS_ECHO_PID.
start_node_ws_echo() {
  ensure_node_ws
  mkdir -p "$SB_PEER_LOG_DIR"
  sb_start_server node-ws-echo "$1" "$SB_PEER_LOG_DIR/peer-node-ws-echo.log" \
    env "$(node_ws_env)" node "$SB_NODE_ECHO_JS" --port "$1"
  NODE_WS_ECHO_PID=$server_pid
}

# --- the floors (LoadTests/Floors): the least any server does --

SB_ECHO_FLOOR_SOURCE=$SB_ROOT/LoadTests/Floors/echo-floor.c
SB_ECHO_FLOOR_BIN=$SB_ROOT/.build-floor/echo-floor
SB_CHAT_FLOOR_SOURCE=$SB_ROOT/LoadTests/Floors/chat-floor.c
SB_CHAT_FLOOR_BIN=$SB_ROOT/.build-floor/chat-floor

# build_c_floor SOURCE BINARY: compile a floor server unless the binary is newer
# than its source and the floors' shared floor.h. The Swift toolchain brings clang; libcrypto (libssl-dev)
# gives SHA-1 and base64 for the upgrade.
build_c_floor() {
  local source=$1 binary=$2 name
  name=$(basename "$binary")
  if [ -x "$binary" ] && [ "$binary" -nt "$source" ] && [ "$binary" -nt "$(dirname "$source")/floor.h" ]; then
    return 0
  fi
  ensure_packages libssl-dev
  local cc=${CC:-}
  if [ -z "$cc" ]; then
    cc=$(command -v clang || command -v cc) || sb_die "no C compiler for $name (clang comes with Swift)"
  fi
  mkdir -p "$(dirname "$binary")"
  "$cc" -O2 -Wall -Wextra -Werror -o "$binary" "$source" -lcrypto || sb_die "$name build failed"
}

build_echo_floor() { build_c_floor "$SB_ECHO_FLOOR_SOURCE" "$SB_ECHO_FLOOR_BIN"; }
build_chat_floor() { build_c_floor "$SB_CHAT_FLOOR_SOURCE" "$SB_CHAT_FLOOR_BIN"; }
