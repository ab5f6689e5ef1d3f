#!/usr/bin/env bash
# usage: scripts/source-hash.sh DIR...   (DIRs relative to the repository root)
#
# The source hash, the one algorithm the Makefile (NATIVE_SRC_HASH), scripts/manifest.sh
# (source_sha256), `make pgo` (pgo/training.json) and the harness (manifest.json's
# source_hashes, Go: harness/internal/machine.SourceHash) all use; a Go test holds the two
# equal. It is the SHA-256 of the listing `sha256sum` prints ("<sha256>  <path>" a line) for
# every regular file under the DIRs, sorted by path as bytes (LC_ALL=C), so names count as well
# as contents; directories named node_modules, dist, .git, build, bin or results are skipped.
# It prints nothing when the DIRs hold no file.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
list() {
  find "$@" \( -type d \( -name node_modules -o -name dist -o -name .git -o -name build -o -name bin \
    -o -name results \) -prune \) -o -type f -print0 2>/dev/null || true
}
[ -n "$(list "$@" | head -c1)" ] || exit 0
list "$@" | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
