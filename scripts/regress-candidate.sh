#!/usr/bin/env bash
# scripts/regress-candidate.sh ROUNDS [DIR] — builds a known-slower candidate for the gate's
# figures: the release binding-server with the test-only regress hook (bindrace_regress), whose
# every ping hashes its path ROUNDS times — real extra CPU work per response, unlike a CPU
# quota's 10 ms throttling. Prints the cmd: target that races it, e.g.
#   bin/bindrace race --a "$(scripts/regress-candidate.sh 300)" --b binding --allow-unequal-threads
# (--allow-unequal-threads is not needed: the binary reports its threads; the target takes
# {threads} like binding's). The slowdown ROUNDS buys is measured, not assumed: docs/statistics.md
# gives the rounds behind the 7% and 15% candidates on the reference VM.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ROUNDS="${1:?usage: scripts/regress-candidate.sh ROUNDS [DIR]}"
DIR="${2:-build/regress-$ROUNDS}"
[[ "$ROUNDS" =~ ^[0-9]+$ ]] || { echo "regress-candidate: ROUNDS must be a whole number, got $ROUNDS" >&2; exit 2; }
[ -f build/release/libbindrace.a ] || { echo "regress-candidate: build/release/libbindrace.a not found (make build)" >&2; exit 1; }
mkdir -p "$DIR"
stamp="$(scripts/manifest.sh --stamp build/release/manifest.json)"
go build -tags bindrace_release,bindrace_regress \
  -ldflags "-X main.regressRounds=$ROUNDS -X 'github.com/bindrace/bindrace/binding.nativeBuild=$stamp'" \
  -o "$DIR/binding-server" ./harness/cmd/binding-server >&2
case "$DIR" in /*) ;; *) DIR="$ROOT/$DIR" ;; esac  # the cmd: target runs from anywhere
echo "cmd:$DIR/binding-server --port {port} --threads {threads}"
