#!/usr/bin/env bash
# Installs the hyper-express example's Node modules. Idempotent: `npm ci` runs only when
# node_modules is missing or was installed from a different lockfile (stamp = sha256 of
# package-lock.json, as scripts/setup.sh does for the uws target). Works from any cwd.
set -euo pipefail

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$DIR"

step() { printf 'setup: %-14s %s\n' "$1" "$2"; }
die() { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }

command -v node >/dev/null 2>&1 || die "node not found; the example needs Node 20 (as the uws target)"
command -v npm >/dev/null 2>&1 || die "npm not found"
[ -f package-lock.json ] || die "examples/hyper-express/package-lock.json is missing"

want="$(sha256sum package-lock.json | cut -d' ' -f1)"
stamp="node_modules/.bindrace-lock.sha256"
have="$(cat "$stamp" 2>/dev/null || true)"
if [ -d node_modules ] && [ "$want" = "$have" ]; then
  step npm "node_modules up to date (lock ${want:0:12})"
else
  step npm "npm ci in examples/hyper-express (lock ${want:0:12})"
  log="$(mktemp)"
  if ! npm ci --no-audit --no-fund --loglevel=error </dev/null >"$log" 2>&1; then
    tail -n 30 "$log" >&2; rm -f "$log"
    die "npm ci failed in examples/hyper-express (output above)"
  fi
  rm -f "$log"
  printf '%s\n' "$want" >"$stamp"
fi

# The aliased uWebSockets.js must load its native addon here, not its pure-Node fallback
# (server.js refuses to start otherwise; say so now rather than at the first race).
if node -e '
  const path = require("path");
  const dir = path.dirname(require.resolve("uWebSockets.js/package.json"));
  const addon = require(path.join(dir, "binaries", `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`));
  if (typeof addon.App !== "function") process.exit(1);
' >/dev/null 2>&1; then
  step uws "uWebSockets.js $(node -p 'require("uWebSockets.js/package.json").version') loads on node $(node --version)"
else
  step uws "WARNING: the uWebSockets.js addon does not load on node $(node --version) (glibc/ABI?); server.js will refuse to start"
fi
step hyper-express "$(node -p 'require("hyper-express/package.json").version')"
