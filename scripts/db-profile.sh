#!/usr/bin/env bash
# scripts/db-profile.sh — where a server's CPU goes per request in a database race.
#
# Runs `bin/bindrace race` with the arguments given (default: binding vs fasthttp on get-user
# at 10 connections, 2 pairs of 6 s windows) and samples each measured run's server with
# `perf record -e cpu-clock -g` (no PMU needed) for PERF_SECONDS of its window, perf itself on
# the client CPU 0. Then `bindrace counters --fold` folds every run's samples (by function, by
# system call, and by activity: stack growth, sysmon, GC, the query, …) in ns of server CPU per
# request at that run's throughput. A server process counts as measured once it has lived 1.2 s
# (the verifications before the race are shorter); PostgreSQL is skipped. The sampler of
# `bindrace counters --mode perf --sample` is the same, for one server outside a race.
#
# Environment: OUT (results/db-profile), PERF_SECONDS (5), PERF_HZ (4000).
# docs/database.md shows what it found.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${OUT:-results/db-profile}"
SECONDS_PERF="${PERF_SECONDS:-5}"
HZ="${PERF_HZ:-4000}"
[ $# -gt 0 ] || set -- --a binding --b fasthttp --scenario get-user --windows 1 --connections 10 \
  --pipelining 1 --pairs 2 --warmup 1s --duration 6s --cooldown 1s --counters none
command -v perf >/dev/null || { echo "db-profile: perf not found (apt-get install linux-perf)" >&2; exit 1; }
rm -rf "$OUT" && mkdir -p "$OUT"

bin/bindrace race "$@" --out "$OUT/race" >"$OUT/race.log" 2>&1 &
race=$!
runs=()
while kill -0 "$race" 2>/dev/null; do
  for pid in $(pgrep -P "$race" || true); do
    case " ${runs[*]-} " in *" $pid "*) continue ;; esac
    [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = postgres ] && continue
    sleep 1.2
    kill -0 "$pid" 2>/dev/null || continue
    runs+=("$pid")
    taskset -c 0 perf record -q -e cpu-clock -F "$HZ" -g -p "$pid" -o "$OUT/run-${#runs[@]}.perf.data" \
      -- sleep "$SECONDS_PERF" >/dev/null 2>&1 || true
  done
  sleep 0.1
done
wait "$race" || true
grep ' pair ' "$OUT/race.log" || { cat "$OUT/race.log" >&2; exit 1; }

# The measured runs in the order they ran: target and throughput, from the session.
node -e '
const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const runs = [];
for (const p of s.pairs) runs.push(...(p.order === "BA" ? [p.b, p.a] : [p.a, p.b]));
for (const r of runs) console.log(r.target + "\t" + r.rps);
' "$OUT/race/summary.json" >"$OUT/runs.tsv"
i=0
while IFS=$'\t' read -r target rps; do
  i=$((i + 1))
  f="$OUT/run-$i.perf.data"
  [ -f "$f" ] || continue
  printf '\n== run %d: %s at %.0f requests/s\n' "$i" "$target" "$rps"
  bin/bindrace counters --fold "$f" --responses "$(awk -v r="$rps" -v s="$SECONDS_PERF" 'BEGIN { printf "%.0f", r * s }')" --functions 15
done <"$OUT/runs.tsv"
