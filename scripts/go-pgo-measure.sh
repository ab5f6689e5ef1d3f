#!/usr/bin/env bash
# scripts/go-pgo-measure.sh — what Go PGO (harness/cmd/binding-server/default.pgo) buys the
# binding's Go side, in cachegrind instructions per response.
#
# Builds the release binding-server twice from the same native library (build/release), once
# with the committed default.pgo (-pgo=auto) and once without (-pgo=off), then counts both with
# `bindrace counters --mode cachegrind` per scenario, the two builds alternating, REPS times
# each, and prints each scenario's medians and their difference. Cachegrind counts user-space
# instructions deterministically up to the Go runtime's scheduling (docs/noise.md), so one
# session of a few repetitions is enough; nothing here is a wall-clock figure.
#
# Environment: SCENARIOS ("ping params ws-echo"), REPS (3), PROFILE (the default.pgo to
# measure; default the committed one), OUT (build/go-pgo).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
SCENARIOS="${SCENARIOS:-ping params ws-echo}"
REPS="${REPS:-3}"
PROFILE="${PROFILE:-harness/cmd/binding-server/default.pgo}"
OUT="${OUT:-build/go-pgo}"
GO="${GO:-go}"

die() { printf 'go-pgo: ERROR: %s\n' "$*" >&2; exit 1; }
[ -f "$PROFILE" ] || die "$PROFILE not found (make pgo trains it)"
[ -f build/release/libbindrace.a ] || die "build/release/libbindrace.a not found (make build)"
[ -x bin/bindrace ] || die "bin/bindrace not found (make build)"

mkdir -p "$OUT"
stamp="$(scripts/manifest.sh --stamp build/release/manifest.json)"
ldflags="-X 'github.com/bindrace/bindrace/binding.nativeBuild=$stamp'"
"$GO" build -pgo="$PROFILE" -tags bindrace_release -ldflags "$ldflags" -o "$OUT/server-pgo" ./harness/cmd/binding-server
"$GO" build -pgo=off -tags bindrace_release -ldflags "$ldflags" -o "$OUT/server-nopgo" ./harness/cmd/binding-server
printf 'go-pgo: profile %s (sha256 %s)\n' "$PROFILE" "$(sha256sum "$PROFILE" | cut -c1-16)"

count() { # variant scenario rep -> instructions per response
  local f="$OUT/$2-$1-$3.json"
  bin/bindrace counters --target "cmd:$ROOT/$OUT/server-$1 --port {port} --threads {threads}" \
    --scenario "$2" --mode cachegrind --json >"$f" 2>"$OUT/$2-$1-$3.log" || die "counters $1 $2 failed: $(tail -n 3 "$OUT/$2-$1-$3.log")"
  node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")).per_response.instructions)' "$f"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

printf '%-10s %12s %12s %9s   %s\n' scenario "with pgo" "-pgo=off" delta "runs (with | off)"
for s in $SCENARIOS; do
  on=() off=()
  for r in $(seq 1 "$REPS"); do
    if [ $((r % 2)) = 1 ]; then off+=("$(count nopgo "$s" "$r")"); on+=("$(count pgo "$s" "$r")")
    else on+=("$(count pgo "$s" "$r")"); off+=("$(count nopgo "$s" "$r")"); fi
  done
  m_on="$(printf '%s\n' "${on[@]}" | median)" m_off="$(printf '%s\n' "${off[@]}" | median)"
  printf '%-10s %12.1f %12.1f %+8.2f%%   %s | %s\n' "$s" "$m_on" "$m_off" \
    "$(awk -v a="$m_on" -v b="$m_off" 'BEGIN {print (a/b-1)*100}')" "${on[*]}" "${off[*]}"
done
