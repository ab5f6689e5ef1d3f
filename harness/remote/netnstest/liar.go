package netnstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A lab host can be made to misbehave, as a host whose harness is broken or lies would: every
// command its sshd runs passes through a wrapper (sshd's ForceCommand, commandFile) that runs
// what the client asked, except that, where a test put a lie in place (Lie), the harness's own
// `bindrace SUB` runs the lie instead, and where it put a delay (Delay), every command waits
// that long first. The wrapper also exports BINDRACE_LAB_CONN, the sshd process serving the
// connection: a lie that kills it drops the harness's connection to the host.
const commandScript = `#!/bin/sh
# ForceCommand of lab host @ROLE@ (netnstest): runs what the client asked, lies and delays included.
cmd=$SSH_ORIGINAL_COMMAND
for lie in @BASE@.lie-*; do
  [ -x "$lie" ] || continue
  sub=${lie##*.lie-}
  cmd=$(printf '%s\n' "$cmd" | sed "s#\([^ ']*/bin/bindrace\) $sub #$lie \1 $sub #g")
done
if [ -s @BASE@.delay ]; then sleep "$(cat @BASE@.delay)"; fi
BINDRACE_LAB_CONN=$PPID; export BINDRACE_LAB_CONN
# The command's text must not be in the environment of what it runs: the harness's scripts find
# a session's processes by a tag in their environment, and the text of its stop script holds it
# (so sshd's ForceCommand execs this script: a login shell left waiting would hold it too).
unset SSH_ORIGINAL_COMMAND
exec sh -c "$cmd"
`

// hostFiles is the prefix of h's files in the lab's directory dir.
func hostFiles(dir string, h Host) string { return filepath.Join(dir, h.Role) }

// writeCommand writes h's ForceCommand into dir and returns its path.
func writeCommand(dir string, h Host) (string, error) {
	path := hostFiles(dir, h) + ".command"
	script := strings.NewReplacer("@ROLE@", h.Role, "@BASE@", hostFiles(dir, h)).Replace(commandScript)
	return path, os.WriteFile(path, []byte(script), 0o755)
}

// Lie makes h run script (a shell script) in place of every `bindrace SUB` the harness starts
// there, until Truth: the script gets the real binary's path, then SUB and its arguments, and
// the real command's stdin, stdout and stderr.
func (l *Lab) Lie(h Host, sub, script string) error {
	if sub == "" || strings.ContainsAny(sub, " /#'*") {
		return fmt.Errorf("netnstest: lie about %q: want a subcommand's name", sub)
	}
	return os.WriteFile(hostFiles(l.Dir, h)+".lie-"+sub, []byte(script), 0o755)
}

// Delay makes h answer every ssh command d late, until Truth.
func (l *Lab) Delay(h Host, d time.Duration) error {
	return os.WriteFile(hostFiles(l.Dir, h)+".delay", []byte(strconv.FormatFloat(d.Seconds(), 'f', 3, 64)), 0o644)
}

// Truth undoes h's lies and delay.
func (l *Lab) Truth(h Host) error {
	files, _ := filepath.Glob(hostFiles(l.Dir, h) + ".lie-*")
	for _, f := range append(files, hostFiles(l.Dir, h)+".delay") {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
