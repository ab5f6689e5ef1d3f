#!/usr/bin/env bash
# Regenerates the cachegrind fixtures of harness/counters' tests from prog.cc: the N and 2N runs
# (N = 1000 calls) of the program with symbols (prog.N.out, prog.2N.out) and stripped
# (stripped.N.out, stripped.2N.out), under the options bindrace runs servers with.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for calls in 1000 2000; do
  clang++-19 -O2 -gdwarf-4 -static -nostdlib -fno-exceptions -fno-rtti -fuse-ld=lld -DCALLS=$calls -o "$tmp/prog$calls" prog.cc
  cp "$tmp/prog$calls" "$tmp/stripped$calls" && strip "$tmp/stripped$calls"
done
cg() { setarch -R valgrind -q --tool=cachegrind --branch-sim=yes --cache-sim=yes --demangle=no --cachegrind-out-file="$1" "$2"; }
for bin in prog stripped; do
  cg "$bin.N.out" "$tmp/${bin}1000"
  cg "$bin.2N.out" "$tmp/${bin}2000"
done
# The cmd: and fl= lines name the temporary and this directory; the tests read neither.
sed -i -e "s|$tmp/||" -e "s|$PWD/||" prog.*.out stripped.*.out
