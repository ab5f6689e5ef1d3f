#!/usr/bin/env bash
# scripts/setup.sh — make a Debian 12 (bookworm) x86-64 machine ready to build, test and bench
# bindrace. Idempotent and fast when everything is already there: it checks first, runs
# `apt-get update` only when a package is missing, and reinstalls Node modules only when the
# upstream target's lockfile changed. Works from any cwd. Prints one line per step.
#
# Environment:
#   SETUP_SKIP_APT=1   skip the system-package step (e.g. on a non-Debian dev box)
#   SETUP_SKIP_NPM=1   skip the Node modules step
#   SETUP_SKIP_GO=1    skip `go mod download`
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# Go lives in /usr/local/go on our machines; a non-login shell may not have it on PATH.
if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH="$PATH:/usr/local/go/bin"
fi

step() { printf 'setup: %-14s %s\n' "$1" "$2"; }
die() { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }
t0=$(date +%s)

# ---------------------------------------------------------------------------------------------
# 1. System packages; one that cannot be installed fails the script.
# chromium: the report page is tested in a real headless browser.
# clang-tidy-19: make lint-native. linux-perf: the cpu-clock sampler (--sample) and its tests.
REQUIRED_PKGS=(clang-19 lld-19 llvm-19 libclang-rt-19-dev clang-tidy-19 g++ valgrind wrk util-linux git chromium linux-perf)

pkg_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]
}

apt_install() { # apt_install PKG... ; runs `apt-get update` once per script run
  if [ -z "${APT_UPDATED:-}" ]; then
    step apt "apt-get update"
    apt-get update -qq >/dev/null || { echo "setup: apt-get update failed" >&2; return 1; }
    APT_UPDATED=1
  fi
  local log rc=0
  log="$(mktemp)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" </dev/null >"$log" 2>&1 || rc=$?
  [ "$rc" = 0 ] || tail -n 20 "$log" >&2
  rm -f "$log"
  return "$rc"
}

if [ "${SETUP_SKIP_APT:-0}" = 1 ]; then
  step packages "skipped (SETUP_SKIP_APT=1)"
elif ! command -v dpkg-query >/dev/null 2>&1; then
  step packages "skipped: not a Debian system; install clang-19, lld-19, llvm-19, libclang-rt-19-dev, clang-tidy-19, valgrind, wrk yourself"
else
  [ "$(id -u)" = 0 ] || SUDO=sudo
  missing=()
  for p in "${REQUIRED_PKGS[@]}"; do pkg_installed "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -eq 0 ]; then
    step packages "present: ${REQUIRED_PKGS[*]}"
  else
    step packages "installing: ${missing[*]}"
    if [ -n "${SUDO:-}" ]; then
      die "not root: run 'sudo apt-get install ${missing[*]}' (or re-run this script as root)"
    fi
    apt_install "${missing[@]}" || die "apt-get install ${missing[*]} failed"
    for p in "${missing[@]}"; do pkg_installed "$p" || die "package $p still not installed"; done
  fi
fi

# PostgreSQL for the database scenarios: the harness runs a private cluster from Debian's server
# binaries (harness/db). The package creates a "main" cluster of its own and tries to start it;
# bindrace never uses it. While the package installs, a policy-rc.d that denies service starts
# keeps that start from failing the install where there is no init system (a container).
PG_PKG=postgresql
apt_install_nostart() { # apt_install_nostart PKG... ; like apt_install, starting no service
  local policy=/usr/sbin/policy-rc.d rc=0
  if [ -e "$policy" ]; then
    apt_install "$@" || rc=$?
  else
    printf '#!/bin/sh\n# scripts/setup.sh (bindrace): no service starts while it installs packages\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    apt_install "$@" || rc=$?
    rm -f "$policy"
    trap - EXIT
  fi
  return "$rc"
}
if [ "${SETUP_SKIP_APT:-0}" != 1 ] && command -v dpkg-query >/dev/null 2>&1 && ! pkg_installed "$PG_PKG"; then
  step postgresql "installing $PG_PKG"
  [ "$(id -u)" = 0 ] || die "not root: run 'sudo apt-get install $PG_PKG' (or re-run this script as root)"
  apt_install_nostart "$PG_PKG" || die "apt-get install $PG_PKG failed"
  pkg_installed "$PG_PKG" || die "package $PG_PKG still not installed"
fi
# Checked even when the apt step was skipped, where harness/db looks: the newest
# /usr/lib/postgresql/<major>/bin, else PATH.
pg_bin=""
for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4,4 -rn); do
  if [ -x "$d/postgres" ] && [ -x "$d/initdb" ]; then pg_bin="$d"; break; fi
done
if [ -z "$pg_bin" ] && command -v postgres >/dev/null 2>&1; then pg_bin="$(dirname "$(command -v postgres)")"; fi
{ [ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ]; } || die "PostgreSQL server (postgres, initdb) not found (package $PG_PKG)"
# initdb and postgres refuse to run as root: as root, the harness runs them as user postgres.
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  die "user postgres not found (package $PG_PKG creates it); the harness runs PostgreSQL as it"
fi
step postgresql "$("$pg_bin/postgres" --version) in $pg_bin"

# ---------------------------------------------------------------------------------------------
# 1b. Remote hosts: ssh runs servers and load generators on other hosts (harness/remote), rsync
#     over the same ssh copies what they run there (it is needed on the hosts too), and its tests
#     build hosts of their own in network namespaces (ip) with an sshd inside each.
#     openssh-server is wanted for /usr/sbin/sshd only, never as this machine's service: when this
#     script installs it, apt_install_nostart keeps the package from starting sshd, and
#     /etc/ssh/sshd_not_to_be_run (honoured by Debian's ssh unit and init script) keeps any later
#     boot from starting it. A machine that already had openssh-server keeps its sshd as it was.
SSH_PKGS=(openssh-client openssh-server iproute2 rsync)

if [ "${SETUP_SKIP_APT:-0}" = 1 ] || ! command -v dpkg-query >/dev/null 2>&1; then
  step ssh "skipped; install ${SSH_PKGS[*]} yourself (harness/remote and its tests need them)"
else
  missing=()
  for p in "${SSH_PKGS[@]}"; do pkg_installed "$p" || missing+=("$p"); done
  if [ ${#missing[@]} -eq 0 ]; then
    step ssh "present: ${SSH_PKGS[*]}"
  else
    [ -z "${SUDO:-}" ] || die "not root: run 'sudo apt-get install ${missing[*]}' (or re-run this script as root)"
    step ssh "installing: ${missing[*]}"
    if [[ " ${missing[*]} " == *" openssh-server "* ]]; then
      mkdir -p /etc/ssh && : >/etc/ssh/sshd_not_to_be_run
    fi
    apt_install_nostart "${missing[@]}" || die "apt-get install ${missing[*]} failed"
    for p in "${missing[@]}"; do pkg_installed "$p" || die "package $p still not installed"; done
    if [[ " ${missing[*]} " == *" openssh-server "* ]] && [ -d /run/systemd/system ]; then
      systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true
    fi
  fi
fi
for tool in ssh scp ssh-keygen ip rsync; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found (packages ${SSH_PKGS[*]})"
done
[ -x /usr/sbin/sshd ] || die "/usr/sbin/sshd not found (package openssh-server)"

# The tools the Makefile calls, and the profile runtime the instrumented (PGO training) build
# links. Checked even when the apt step was skipped, so a broken box fails here, not mid-build.
for tool in clang++-19 ld.lld-19 llvm-ar-19 llvm-profdata-19 clang-tidy-19; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool not found (package clang-19/lld-19/llvm-19/clang-tidy-19)"
done
rt="$(clang++-19 -print-file-name=libclang_rt.profile-x86_64.a)"
[ -f "$rt" ] || die "libclang_rt.profile-x86_64.a not found (package libclang-rt-19-dev)"
step toolchain "$(clang++-19 --version | head -n1)"

# tracefs: the system-call counters open the raw_syscalls tracepoints by the ids tracefs names
# (no PMU needed). A fresh VM may not have it mounted until something like perf mounts it; the
# mount lasts until reboot, so every set-up checks it.
if grep -q ' tracefs ' /proc/mounts 2>/dev/null; then
  step tracefs "mounted"
elif [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
  step tracefs "mounted at /sys/kernel/tracing"
else
  step tracefs "WARNING: not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing); system-call counts will be reported as unsupported"
fi

# ---------------------------------------------------------------------------------------------
# 2. Node (runs the pinned upstream uWebSockets.js target). Node 20 is what the pinned build
#    supports on Debian 12's glibc; Debian's own nodejs is 18, so an older one only warns.
if ! command -v node >/dev/null 2>&1 && [ "${SETUP_SKIP_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ]; then
  step node "not found, installing nodejs"
  apt_install nodejs npm || apt_install nodejs || die "could not install nodejs"
fi
command -v node >/dev/null 2>&1 || die "node not found; the uws target needs Node 20"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  step node "WARNING: node $(node --version) found; the pinned uws build is tested on Node 20"
else
  step node "$(node --version)"
fi

# 3. Node modules of the pinned upstream: `npm ci` when node_modules is missing or was
#    installed from a different lockfile (stamp = sha256 of package-lock.json).
UWS_DIR="$ROOT/harness/targets/uws"
if [ "${SETUP_SKIP_NPM:-0}" = 1 ]; then
  step npm "skipped (SETUP_SKIP_NPM=1)"
elif [ ! -f "$UWS_DIR/package-lock.json" ]; then
  step npm "skipped: harness/targets/uws/package-lock.json not present"
else
  command -v npm >/dev/null 2>&1 || die "npm not found (needed for harness/targets/uws)"
  want="$(sha256sum "$UWS_DIR/package-lock.json" | cut -d' ' -f1)"
  stamp="$UWS_DIR/node_modules/.bindrace-lock.sha256"
  have="$(cat "$stamp" 2>/dev/null || true)"
  if [ -d "$UWS_DIR/node_modules" ] && [ "$want" = "$have" ]; then
    step npm "node_modules up to date (lock ${want:0:12})"
  else
    step npm "npm ci in harness/targets/uws (lock ${want:0:12})"
    log="$(mktemp)"
    if ! (cd "$UWS_DIR" && npm ci --no-audit --no-fund --loglevel=error </dev/null) >"$log" 2>&1; then
      tail -n 30 "$log" >&2; rm -f "$log"
      die "npm ci failed in harness/targets/uws (output above)"
    fi
    rm -f "$log"
    printf '%s\n' "$want" >"$stamp"
  fi
  # The pinned package ships prebuilt addons per Node ABI/glibc; prove this one loads here.
  pkg="$(node -p 'Object.keys(require(process.argv[1]).dependencies||{}).find(n=>/uws/i.test(n))||""' \
    "$UWS_DIR/package.json" 2>/dev/null || true)"
  if [ -n "$pkg" ]; then
    if (cd "$UWS_DIR" && node -e 'if(typeof require(process.argv[1]).App!=="function")process.exit(1)' "$pkg") >/dev/null 2>&1; then
      step uws "$pkg loads on node $(node --version)"
    else
      step uws "WARNING: $pkg does not load on node $(node --version) (glibc/ABI?); target uws will fail"
    fi
  fi
fi

# ---------------------------------------------------------------------------------------------
# 4. Go modules (pinned in go.mod/go.sum).
if [ "${SETUP_SKIP_GO:-0}" = 1 ]; then
  step go "skipped (SETUP_SKIP_GO=1)"
else
  command -v go >/dev/null 2>&1 || die "go not found (expected /usr/local/go/bin/go)"
  go mod download || die "go mod download failed"
  step go "$(go version | cut -d' ' -f3) modules downloaded"
fi

step done "in $(( $(date +%s) - t0 ))s"
