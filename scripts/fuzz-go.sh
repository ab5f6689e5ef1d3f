#!/usr/bin/env bash
# Runs every Go fuzz target (func FuzzX(f *testing.F)) of the given packages for SECONDS each,
# one after the other, and prints its executions per second and total executions; exits 1 on
# the first finding, naming where Go saved the input. Targets are read from each package's test
# files as `go list` selects them (build tags applied), so a target added to any package is run
# without editing this script or the Makefile. Not `go test -list`: that runs each package's
# TestMain, and some build servers or set up a network lab before listing anything.
#
#   scripts/fuzz-go.sh SECONDS PACKAGES...      (make fuzz-go: ./binding/ ./harness/...)
#
# -fuzzminimizetime is kept short: Go's default spends up to 60 s minimizing each new
# interesting input, and a saved session is kilobytes, so a run would mostly minimize.
set -euo pipefail
secs=$1
shift
GO=${GO:-go}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# "package target" per line.
targets=$("$GO" list -f '{{.ImportPath}}{{range .TestGoFiles}} {{$.Dir}}/{{.}}{{end}}{{range .XTestGoFiles}} {{$.Dir}}/{{.}}{{end}}' "$@" |
  while read -r pkg files; do
    [ -z "$files" ] || grep -ho '^func Fuzz[A-Za-z0-9_]*([A-Za-z_][A-Za-z0-9_]* \*testing\.F)' $files | sed -E "s|^func (Fuzz[A-Za-z0-9_]*)\(.*|$pkg \1|"
  done)
[ -n "$targets" ] || { echo "fuzz-go: no fuzz targets in $*" >&2; exit 1; }

# saved lists the inputs Go has saved for a target (a finding writes one there).
saved() { ls "$1" 2>/dev/null || true; }

while read -r pkg target; do
  echo "==> go fuzz $target ($pkg) for $secs s"
  corpus="$("$GO" list -f '{{.Dir}}' "$pkg")/testdata/fuzz/$target"
  before=$(saved "$corpus")
  if ! "$GO" test -run '^$' -fuzz "^$target\$" -fuzztime "${secs}s" -fuzzminimizetime 5s "$pkg" >"$log" 2>&1; then
    # Go 1.26's coordinator can fail a run whose -fuzztime ran out while a worker was still
    # busy, with this bare error and no input saved (go.dev/issue/75804, fixed in Go 1.27): the
    # run ended at its time, and found nothing. Anything else, or an input saved, is a finding.
    if [ "$(saved "$corpus")" != "$before" ] || ! grep -qx '    context deadline exceeded' "$log"; then
      tail -30 "$log"
      echo "fuzz-go: $target FOUND A BUG (input in $corpus/)" >&2
      exit 1
    fi
    echo "fuzz-go: $target: the run ended at its time with Go 1.26's 'context deadline exceeded' and no input saved (go.dev/issue/75804): nothing found"
  fi
  # The last progress line holds the totals: "fuzz: elapsed: 1m1s, execs: 1234567 (20000/sec), ...".
  awk -v t="$target" '
    function seconds(d,  s, u) {
      for (s = 0; match(d, /^[0-9.]+[hms]/); d = substr(d, RLENGTH + 1)) {
        u = substr(d, RLENGTH, 1); s += substr(d, 1, RLENGTH - 1) * (u == "h" ? 3600 : u == "m" ? 60 : 1)
      }
      return s
    }
    /^fuzz: elapsed:/ {e = $3; n = $5}
    END {
      gsub(/,/, "", e); gsub(/,/, "", n); s = seconds(e)
      printf "fuzz-go: %-24s %8.0f exec/s  %12d executions in %ds\n", t, (s > 0 ? n / s : 0), n, s
    }' "$log"
done <<<"$targets"
