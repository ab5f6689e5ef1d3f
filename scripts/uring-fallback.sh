#!/bin/bash
# uring-fallback.sh — the io_uring loop's fallback, shown (docs/io_uring.md): with io_uring
# disabled through kernel.io_uring_disabled (set to 2 here, restored on exit), BINDRACE_LOOP=uring
# refuses to start, naming the reason, and BINDRACE_LOOP=auto says so once and serves on epoll.
# Needs root (the sysctl) and bin/binding-server (make build). Usage: scripts/uring-fallback.sh
set -euo pipefail
cd "$(dirname "$0")/.."
sysctl=/proc/sys/kernel/io_uring_disabled
[ -w "$sysctl" ] || { echo "uring-fallback: $sysctl is not writable here (needs root on Linux 6.6+)" >&2; exit 2; }
old=$(cat "$sysctl")
trap 'echo "$old" > "$sysctl"; echo "restored kernel.io_uring_disabled=$old"' EXIT
echo 2 > "$sysctl"
echo "set kernel.io_uring_disabled=2"
port=$((20000 + RANDOM % 20000))
echo "--- BINDRACE_LOOP=uring bin/binding-server --port $port"
set +e
BINDRACE_LOOP=uring timeout 5 bin/binding-server --port "$port" 2>&1
echo "(exit status $?)"
echo "--- BINDRACE_LOOP=auto bin/binding-server --port $port, then GET /"
BINDRACE_LOOP=auto bin/binding-server --port "$port" 2>&1 &
pid=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
curl -s -i "http://127.0.0.1:$port/" | head -1
kill "$pid"; wait "$pid" 2>/dev/null
echo "(server stopped)"
