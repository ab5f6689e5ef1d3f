#!/usr/bin/env bash
# sanitize_selftest.sh — shows that `make test-sanitize` catches native memory errors: copies the
# repository (minus build outputs) to a throwaway directory, injects a one-byte heap overflow
# into the native core's request dispatch (http_conn.cc: reads one byte past the request target),
# runs the binding's tests there under ASan+UBSan exactly as test-sanitize does, and succeeds
# only if AddressSanitizer reports the overflow. The repository itself is never modified.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GO=${GO:-go}
TMP=$(mktemp -d /tmp/bindrace-sanitize-selftest.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

tar -C "$ROOT" --exclude=./build --exclude=./bin --exclude=./.git --exclude=node_modules -cf - . | tar -C "$TMP" -xf -
f="$TMP/native/src/http_conn.cc"
# The bug: dispatch() copies the request path into an exactly-sized heap block and reads one
# byte past its end (an off-by-one of the kind a parser change could introduce).
anchor='  br_str query = {nullptr, 0};'
grep -qF "$anchor" "$f" || { echo "selftest: anchor not found in http_conn.cc; update the injection" >&2; exit 2; }
python3 - "$f" "$anchor" <<'PY'
import sys
path, anchor = sys.argv[1], sys.argv[2]
s = open(path).read()
inject = ('  { char *copy = static_cast<char *>(malloc(pn)); memcpy(copy, path, pn);\n'
          '    volatile char past = copy[pn]; (void)past; free(copy); }  // INJECTED: heap overflow\n')
s = s.replace(anchor, inject + anchor, 1)
if '#include <cstdlib>' not in s:
    s = s.replace('#include <cstring>', '#include <cstdlib>\n#include <cstring>', 1)
open(path, 'w').write(s)
PY

cd "$TMP"
echo "selftest: injected a heap-buffer-overflow into $f; running the sanitized binding tests" >&2
set +e
CC=${SAN_CC:-clang-19} CXX=${SAN_CXX:-clang++-19} CGO_ENABLED=1 \
CGO_CXXFLAGS="${SAN_CXXFLAGS:--O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined}" \
CGO_LDFLAGS="${SAN_LDFLAGS:--fsanitize=address,undefined}" \
ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-19 || command -v llvm-symbolizer || true) \
  "$GO" test -asan -c -o "$TMP/binding.test" ./binding >"$TMP/out.log" 2>&1 && (cd binding && ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer-19 || true) "$TMP/binding.test" -test.count=1) >>"$TMP/out.log" 2>&1
rc=$?
set -e
if [ $rc -ne 0 ] && grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" "$TMP/out.log"; then
  grep -m1 -A4 "ERROR: AddressSanitizer" "$TMP/out.log" >&2
  echo "sanitize-selftest: ok (the injected overflow was caught, go test exit $rc)"
  exit 0
fi
tail -30 "$TMP/out.log" >&2
echo "sanitize-selftest: FAILED: the injected overflow was not reported (go test exit $rc)" >&2
exit 1
