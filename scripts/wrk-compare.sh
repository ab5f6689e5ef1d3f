#!/usr/bin/env bash
# wrk-compare.sh — responses per server CPU-second, measured with wrk, side by side in one run.
#
#   scripts/wrk-compare.sh [TARGET...]     (default: fasthttp binding binding-static)
#   ROUNDS=3 SECS=5 PATH_Q=/ scripts/wrk-compare.sh binding binding-plain
#
# Each target is started fresh on CPU 1 (GOMAXPROCS=1), wrk runs on CPU 0 with 100 connections
# and a Lua script that writes 10 requests per write (pipelining 10). Throughput alone would
# hide a server that wrk could not saturate, so the figure is rps divided by the server's share
# of one core (utime+stime from /proc over the same window). Rounds alternate the targets so
# drift on a shared machine hits them all alike. Needs `make build build-plain` first.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROUNDS=${ROUNDS:-3} SECS=${SECS:-5} PATH_Q=${PATH_Q:-/}
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(fasthttp binding binding-static)
command -v wrk >/dev/null || { echo "wrk-compare: wrk missing: run scripts/setup.sh" >&2; exit 2; }

lua=$(mktemp --suffix=.lua)
trap 'rm -f "$lua"; [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true' EXIT
cat >"$lua" <<'LUA'
init = function(args)
  local r = {}
  for i = 1, 10 do r[i] = wrk.format(nil, args[1] or "/") end
  req = table.concat(r)
end
request = function() return req end
LUA

server_cmd() { # server_cmd TARGET PORT
  case "$1" in
    binding) echo "bin/binding-server --port $2" ;;
    binding-static) echo "bin/binding-server --static --port $2" ;;
    binding-plain) echo "bin/binding-server-plain --port $2" ;;
    fasthttp|nethttp) echo "bin/go-server --target $1 --port $2" ;;
    *) echo "bin/bindrace serve --target $1 --port $2" ;;
  esac
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

port=18700
for round in $(seq "$ROUNDS"); do
  for t in "${targets[@]}"; do
    port=$((port + 1))
    # shellcheck disable=SC2046
    GOMAXPROCS=1 taskset -c 1 $(server_cmd "$t" "$port") >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 100); do curl -sf -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.05; done
    taskset -c 0 wrk -t1 -c100 -d1s -s "$lua" "http://127.0.0.1:$port$PATH_Q" -- "$PATH_Q" >/dev/null # warm-up
    t0=$(cpu_ticks "$pid"); w0=$(date +%s.%N)
    rps=$(taskset -c 0 wrk -t1 -c100 -d"${SECS}s" -s "$lua" "http://127.0.0.1:$port$PATH_Q" -- "$PATH_Q" | awk '/Requests\/sec/ {print $2}')
    t1=$(cpu_ticks "$pid"); w1=$(date +%s.%N)
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
    awk -v r="$round" -v t="$t" -v rps="$rps" -v c="$((t1 - t0))" -v w0="$w0" -v w1="$w1" -v rss="$rss" 'BEGIN {
      cpu = c / 100 / (w1 - w0)
      printf "round %d %-15s %10.0f rps  server CPU %5.1f%%  %10.0f responses per CPU-second  RSS %.1f MiB\n", r, t, rps, cpu * 100, rps / cpu, rss / 1024 }'
  done
done
