package targets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/bindrace/bindrace/harness/internal/child"
)

// PrepareTarget runs a target's prepare command (a build, an install) in its definition's home, its
// output copied to log, then checks that what it should produce is there. A failure says the
// command, its exit status and its last lines. A target with nothing to prepare is left alone.
func PrepareTarget(ctx context.Context, name string, log io.Writer) (*Target, error) {
	d, ok, err := lookup(name)
	switch {
	case err != nil:
		return nil, err
	case !ok:
		return nil, fmt.Errorf("prepare: %q is not a defined target (known: %s, or a definition file's path)", name, TargetHelp())
	}
	t, err := withPaths(d)
	if err != nil {
		return nil, err
	}
	if err := t.checkReady(); err == nil || d.Prepare.Command == "" {
		return t, err // ready, or nothing here could make it so
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", d.Prepare.Command)
	cmd.Dir = t.homeDir()
	out := &child.Tail{Max: 8 << 10}
	cmd.Stdout = io.MultiWriter(out, log)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			err = fmt.Errorf("exit status %d", exit.ExitCode())
		}
		return nil, fmt.Errorf("target %s: preparing it with `%s` in %s: %v%s", d.Name, d.Prepare.Command, cmd.Dir, err, out.LastLines(15))
	}
	return t, t.checkReady()
}
