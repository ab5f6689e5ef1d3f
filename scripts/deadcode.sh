#!/usr/bin/env bash
# Runs deadcode -test over the module (go tool: the version pinned in go.mod) and fails on any
# unreachable function not named in scripts/deadcode-allow.txt. An allowlist line is
# "<package path>.<function>  <reason>"; '#' starts a comment. An allowlisted function that is
# reachable again is reported too, so the list cannot go stale. Arguments go to deadcode
# (make lint-go passes -tags long, so the long test tier's files count as roots too).
set -euo pipefail
cd "$(dirname "$0")/.."
allow=scripts/deadcode-allow.txt
found=$(go tool deadcode -test "$@" -f '{{range .Funcs}}{{$.Path}}.{{.Name}}{{"\n"}}{{end}}' ./... | sed '/^$/d' | sort -u)
allowed=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$allow" | awk '{print $1}' | sort -u)
unexpected=$(comm -23 <(printf '%s\n' "$found" | sed '/^$/d') <(printf '%s\n' "$allowed" | sed '/^$/d'))
stale=$(comm -13 <(printf '%s\n' "$found" | sed '/^$/d') <(printf '%s\n' "$allowed" | sed '/^$/d'))
status=0
if [ -n "$unexpected" ]; then
	echo "deadcode: unreachable functions (delete them, or allowlist them with a reason in $allow):" >&2
	printf '  %s\n' $unexpected >&2
	status=1
fi
if [ -n "$stale" ]; then
	echo "deadcode: allowlisted in $allow but reachable (remove the line):" >&2
	printf '  %s\n' $stale >&2
	status=1
fi
[ "$status" = 0 ] && echo "deadcode: clean ($(printf '%s\n' "$allowed" | sed '/^$/d' | wc -l) allowlisted)"
exit "$status"
