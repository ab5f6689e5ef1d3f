#!/usr/bin/env bash
# scripts/pgo-train.sh — the training run behind `make pgo`.
#
# Starts the instrumented server (bin/binding-server-instrumented) pinned to one CPU with
# LLVM_PROFILE_FILE=build/pgo/%p.profraw, drives the scenario mix of the pgo-balanced profile
# with the harness load generator pinned to another CPU, stops the server with SIGTERM (the
# binding calls __llvm_profile_write_file() at shutdown: Go never runs C atexit handlers), merges
# the raw profiles into pgo/default.profdata and records pgo/training.json (source hash, mix,
# tool versions) so later builds can tell whether the profile still matches the sources.
#
# Environment (all optional):
#   PGO_SCENARIOS     space-separated mix; default: "scenarios" and "extra_races" of
#                     profiles/pgo-balanced-linux.json, else "ping params json stream"
#   PGO_PROFILE_JSON  profile to read the mix from (profiles/pgo-balanced-linux.json)
#   PGO_DURATION      per scenario (3s)      PGO_CONNECTIONS (50)   PGO_PIPELINING (10)
#   PGO_STREAM_CONNECTIONS (4); stream always runs with pipelining 1
#   PGO_WS_DURATION   ws-echo's share (500ms, no warm-up: a tenth of an HTTP scenario's 2 s + 3 s)
#   PGO_SERVER_CPU (1)  PGO_CLIENT_CPU (0)   ignored on a 1-CPU machine
#   PGO_PORT          default: a free port
#   PGO_OUT           output profile (pgo/default.profdata)
#   SERVER, LOAD      binaries (bin/binding-server-instrumented, bin/bindrace)
#   LLVM_PROFDATA     (llvm-profdata-19)
#   GO_PGO_OUT        Go PGO instead: run SERVER (then the release bin/binding-server) with
#                     --cpuprofile, write Go's CPU profile of the same mix to GO_PGO_OUT
#                     (harness/cmd/binding-server/default.pgo) and skip the LLVM merge
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

SERVER="${SERVER:-bin/binding-server-instrumented}"
LOAD="${LOAD:-bin/bindrace}"
LLVM_PROFDATA="${LLVM_PROFDATA:-llvm-profdata-19}"
PGO_OUT="${PGO_OUT:-pgo/default.profdata}"
PGO_PROFILE_JSON="${PGO_PROFILE_JSON:-profiles/pgo-balanced-linux.json}"
DURATION="${PGO_DURATION:-3s}"
CONNS="${PGO_CONNECTIONS:-50}"
PIPE="${PGO_PIPELINING:-10}"
STREAM_CONNS="${PGO_STREAM_CONNECTIONS:-4}"
WS_DURATION="${PGO_WS_DURATION:-500ms}"
RAW_DIR="$ROOT/build/pgo"
GO_PGO_OUT="${GO_PGO_OUT:-}"

say() { printf 'pgo: %s\n' "$*"; }
die() { printf 'pgo: ERROR: %s\n' "$*" >&2; exit 1; }

# ---- outputs: replaced only when what is there is a profile of the same kind (a profile carries
# no other mark of what wrote it), and training.json only when it is a training record; checked
# before the minutes of training, so a mistyped path loses nothing.
magic() { head -c "$2" "$1" | od -An -tx1 | tr -d ' \n'; }
replaceable() { # FILE MAGIC-HEX WHAT
  [ ! -e "$1" ] && return 0
  [ -f "$1" ] && [ "$(magic "$1" $((${#2} / 2)))" = "$2" ] && return 0
  die "$1 exists and is not $3: not replaced (remove it or give another path)"
}
if [ -n "$GO_PGO_OUT" ]; then
  replaceable "$GO_PGO_OUT" 1f8b "a Go CPU profile (gzip'd pprof)"
else
  replaceable "$PGO_OUT" ff6c70726f666981 "an LLVM indexed profile"
  record="$(dirname "$PGO_OUT")/training.json"
  if [ -e "$record" ] && ! grep -q '"profile_sha256"' "$record"; then
    die "$record exists and is not a training record: not replaced (give PGO_OUT in another folder)"
  fi
fi

[ -x "$SERVER" ] || die "$SERVER not found (make bin/binding-server-instrumented)"
[ -x "$LOAD" ] || die "$LOAD not found (make bin/bindrace)"
command -v "$LLVM_PROFDATA" >/dev/null 2>&1 || die "$LLVM_PROFDATA not found (scripts/setup.sh)"

# ---- the training mix: env, else the profile's races (its "scenarios" plus the scenario of each
# of its "extra_races", e.g. stream), else the default. Node is a project requirement (uws).
scenarios="${PGO_SCENARIOS:-}" mix_from="PGO_SCENARIOS"
if [ -z "$scenarios" ] && [ -f "$PGO_PROFILE_JSON" ]; then
  mix_from="$PGO_PROFILE_JSON"
  scenarios="$(node -e 'const p=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));
    const s=[...(p.scenarios||[]), ...(p.extra_races||[]).map(r=>r.scenario)];
    console.log([...new Set(s)].join(" "))' "$PGO_PROFILE_JSON")"
fi
[ -n "${scenarios// /}" ] || { scenarios="ping params json stream"; mix_from="default"; }
mix=""
for s in $scenarios; do
  case "$s" in
    ping|params|json|stream|ws-echo) mix="$mix $s" ;;
    *) die "scenario '$s' cannot be trained here (ping|params|json|stream|ws-echo)" ;;
  esac
done
scenarios="${mix# }"
[ -n "$scenarios" ] || die "nothing to train on"
say "mix: $scenarios (from $mix_from)"

# ---- CPU pinning: server and load generator on disjoint CPUs ---------------------------------
ncpu="$(nproc 2>/dev/null || echo 1)"
SERVER_PIN=() CLIENT_PIN=()
if [ "$ncpu" -ge 2 ] && command -v taskset >/dev/null 2>&1; then
  SERVER_PIN=(taskset -c "${PGO_SERVER_CPU:-1}")
  CLIENT_PIN=(taskset -c "${PGO_CLIENT_CPU:-0}")
  say "server on CPU ${PGO_SERVER_CPU:-1}, load generator on CPU ${PGO_CLIENT_CPU:-0}"
else
  say "WARNING: $ncpu CPU(s) or no taskset: server and load generator share CPUs"
fi

# ---- a free port -----------------------------------------------------------------------------
port="${PGO_PORT:-}"
if [ -z "$port" ]; then
  if command -v node >/dev/null 2>&1; then
    port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  else
    port=$(( 20000 + RANDOM % 20000 ))
  fi
fi
URL="http://127.0.0.1:$port"

# ---- start the instrumented server -----------------------------------------------------------
rm -rf "$RAW_DIR" && mkdir -p "$RAW_DIR"
server_log="$RAW_DIR/server.log"
pid=""
cleanup() {
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'die "interrupted"' INT TERM

PROFILE_ARGS=()
if [ -n "$GO_PGO_OUT" ]; then
  PROFILE_ARGS=(--cpuprofile "$RAW_DIR/go-cpu.pprof")
  say "starting $SERVER --port $port --cpuprofile build/pgo/go-cpu.pprof (Go PGO)"
else
  say "starting $SERVER --port $port (LLVM_PROFILE_FILE=build/pgo/%p.profraw)"
fi
LLVM_PROFILE_FILE="$RAW_DIR/%p.profraw" "${SERVER_PIN[@]}" "$SERVER" --port "$port" "${PROFILE_ARGS[@]}" \
  </dev/null >"$server_log" 2>&1 &
pid=$!

# Ready = it answers GET / with 200 (bash's /dev/tcp; no curl needed).
probe() {
  exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
  printf 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
  local line=""
  IFS= read -r -t 2 line <&3 || true
  exec 3<&- 3>&-
  [[ "$line" == "HTTP/1."?" 200"* ]]
}
ready=0
for _ in $(seq 1 150); do
  kill -0 "$pid" 2>/dev/null || { tail -n 20 "$server_log" >&2; die "server exited during start-up"; }
  if probe 2>/dev/null; then ready=1; break; fi
  sleep 0.1
done
[ "$ready" = 1 ] || { tail -n 20 "$server_log" >&2; die "server not answering on $URL after 15s"; }
say "server ready (pid $pid)"

# ---- the mix ---------------------------------------------------------------------------------
for s in $scenarios; do
  c="$CONNS" p="$PIPE" d="$DURATION" w=()
  if [ "$s" = stream ]; then c="$STREAM_CONNS" p=1; fi
  # ws-echo at a tenth of an HTTP scenario's load: enough that its frame code is not cold (at
  # 0 counts clang optimized it for size: +21% instructions against the plain build), little
  # enough that its counts do not push the HTTP path's call sites out of the inliners' hot set
  # (trained as long as the others, params counted 3.5% more: docs/counters.md).
  if [ "$s" = ws-echo ]; then d="$WS_DURATION" w=(--warmup 0); fi
  say "load $s: $d, $c connections, pipelining $p"
  if ! "${CLIENT_PIN[@]}" "$LOAD" load "$URL" --scenario "$s" --duration "$d" "${w[@]}" \
      --connections "$c" --pipelining "$p" </dev/null; then
    die "load generator failed on scenario $s"
  fi
  kill -0 "$pid" 2>/dev/null || { tail -n 20 "$server_log" >&2; die "server died during scenario $s"; }
done

# ---- stop: SIGTERM -> graceful shutdown -> the binding writes the profile ---------------------
say "stopping the server (SIGTERM)"
kill -TERM "$pid"
for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  tail -n 20 "$server_log" >&2
  die "server did not exit within 20s of SIGTERM (no profile written)"
fi
rc=0; wait "$pid" || rc=$?
pid=""
[ "$rc" = 0 ] || say "WARNING: server exited with status $rc"

if [ -n "$GO_PGO_OUT" ]; then
  [ -s "$RAW_DIR/go-cpu.pprof" ] || die "no Go CPU profile written (build/pgo/go-cpu.pprof)"
  mkdir -p "$(dirname "$GO_PGO_OUT")"
  mv -f "$RAW_DIR/go-cpu.pprof" "$GO_PGO_OUT"
  say "Go CPU profile of the mix -> $GO_PGO_OUT (sha256 $(sha256sum "$GO_PGO_OUT" | cut -c1-16))"
  exit 0
fi

shopt -s nullglob
raws=("$RAW_DIR"/*.profraw)
shopt -u nullglob
[ ${#raws[@]} -gt 0 ] || die "no .profraw in build/pgo: the binding must call __llvm_profile_write_file() at shutdown under the bindrace_instrumented tag"

# ---- merge and record ------------------------------------------------------------------------
mkdir -p "$(dirname "$PGO_OUT")"
"$LLVM_PROFDATA" merge -o "$PGO_OUT.tmp" "${raws[@]}" || die "$LLVM_PROFDATA merge failed"
mv -f "$PGO_OUT.tmp" "$PGO_OUT"
hash="$(sha256sum "$PGO_OUT" | cut -d' ' -f1)"
src_hash="$(scripts/manifest.sh --source-hash)"
functions="$("$LLVM_PROFDATA" show "$PGO_OUT" 2>/dev/null | sed -n 's/^Total functions: *//p')"
commit="$(git rev-parse --verify -q HEAD 2>/dev/null || echo unknown)"
json_list="$(printf '"%s",' $scenarios)"
# Written beside the profile and renamed into place, as the profile is: a reader never sees
# half a record.
training="$(dirname "$PGO_OUT")/training.json"
cat >"$training.tmp" <<EOF
{
  "profile": "$(basename "$PGO_OUT")",
  "profile_sha256": "$hash",
  "source_sha256": "$src_hash",
  "git_commit": "$commit",
  "scenarios": [${json_list%,}],
  "duration_per_scenario": "$DURATION",
  "connections": $CONNS,
  "pipelining": $PIPE,
  "stream_connections": $STREAM_CONNS,
  "ws_echo_duration": "$WS_DURATION",
  "raw_profiles": ${#raws[@]},
  "functions": ${functions:-null},
  "llvm_profdata": "$("$LLVM_PROFDATA" merge --version 2>/dev/null | sed -n 's/.*LLVM version \([0-9.]*\).*/\1/p' | head -n1)",
  "trained_at": "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
}
EOF
mv -f "$training.tmp" "$training"
say "merged ${#raws[@]} raw profile(s), ${functions:-?} functions -> $PGO_OUT"
say "profile sha256 $hash"
