package remote

import (
	"strconv"
	"strings"
	"time"
)

// Every process a session starts carries BINDRACE_PROC=<session>/<n>; in its environment, and
// so do its children. The scripts below find a session's processes by that tag at the start of
// an entry of /proc/<pid>/environ: a pid reused by an unrelated process, a zombie (whose environ
// reads empty) or another session's process never matches, and a child that left the group
// still does. Only an entry's start: a process whose environment merely holds the text (sshd's
// SSH_ORIGINAL_COMMAND under a ForceCommand, and what a login shell's rc file runs before the
// command, such as pyenv's rehash holding its lock) is not the session's, and killing it would
// leave that lock behind for every later login.
const tagVar = "BINDRACE_PROC"

func sessionTag(session string) string          { return tagVar + "=" + session + "/" }
func processTag(session string, seq int) string { return sessionTag(session) + strconv.Itoa(seq) + ";" }

// tagPattern is what the scripts give grep -z for tag (@TAG@): a basic regular expression of
// an environment entry that starts with it (a session id's dots taken literally).
func tagPattern(tag string) string { return "^" + strings.ReplaceAll(tag, ".", `\.`) }

// procLib holds the POSIX sh functions the stop and clean-up scripts share.
//
//	tagged PATTERN   pids of live processes with an environment entry PATTERN (tagPattern) matches
//	pgid PID         the process group of PID
//	signal SIG TAG   SIG to each tagged process and to the process group it is in
//	gone TAG N       waits up to N tenths of a second until no tagged process is left
//	stop TAG N       TERM, N tenths of a second of grace, KILL; prints "stopped", "killed"
//	                 or "left <pids>" (and fails)
const procLib = `
tagged() { grep -lsaz -e "$1" /proc/[0-9]*/environ 2>/dev/null | sed -n 's#^/proc/\([0-9]*\)/environ$#\1#p'; }
pgid() { s=; read -r s 2>/dev/null </proc/"$1"/stat; s=${s##*\) }; set -- $s; echo "${3:-}"; }
signal() {
  for p in $(tagged "$2"); do
    g=$(pgid "$p")
    if [ -n "$g" ] && [ "$g" -gt 1 ]; then kill -"$1" -"$g" 2>/dev/null; fi
    kill -"$1" "$p" 2>/dev/null
  done
  return 0
}
gone() { i=0; while [ -n "$(tagged "$1")" ]; do [ "$i" -ge "$2" ] && return 1; sleep 0.1; i=$((i+1)); done; return 0; }
stop() {
  signal TERM "$1"
  if gone "$1" "$2"; then echo stopped; return 0; fi
  signal KILL "$1"
  if gone "$1" 30; then echo killed; return 0; fi
  echo left $(tagged "$1"); return 1
}
`

// tenths converts a duration to the tenths of a second the scripts count in.
func tenths(d time.Duration) string { return strconv.Itoa(max(1, int(d/(100*time.Millisecond)))) }

// fill replaces @KEY@ placeholders in a script with already quoted values.
func fill(script string, kv ...string) string {
	for i := 0; i+1 < len(kv); i += 2 {
		script = strings.ReplaceAll(script, "@"+kv[i]+"@", kv[i+1])
	}
	return script
}

// cleanupScript ends every process of the session on the host (TERM, grace, KILL), confirms
// none is left, and removes the session directory if it carries the session's marker. It
// prints "clean" or "left <pids>".
const cleanupScript = procLib + `
r=$(stop @TAG@ @GRACE@)
if [ -f @DIR@/.bindrace-session ]; then rm -rf @DIR@; fi
case $r in left*) echo "$r"; exit 3;; esac
echo clean
`

// lifelineScript makes the session directory (refusing one that someone else made, or a
// symlink), says "ready", then reads one heartbeat byte (".") at a time. When the harness closes
// the connection (Close, or the harness died), when the connection drops, or when no heartbeat
// came for @SILENCE@ seconds, it runs the clean-up.
const lifelineScript = `
mkdir -p -m 700 @DIR@ || exit 1
if [ -L @DIR@ ] || [ ! -O @DIR@ ]; then echo @DIR@" exists and is not this user's directory" >&2; exit 1; fi
chmod 700 @DIR@ && : >@DIR@/.bindrace-session || exit 1
echo ready
while [ "$(timeout @SILENCE@ dd bs=1 count=1 2>/dev/null)" = . ]; do :; done
` + cleanupScript
