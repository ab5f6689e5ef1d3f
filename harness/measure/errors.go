package measure

import (
	"context"
	"errors"
)

// ErrTargetDied is wrapped when a server process exits during a run.
var ErrTargetDied = errors.New("target exited during the run")

type diedError struct{ msg string }

func (e diedError) Error() string        { return e.msg }
func (e diedError) Is(target error) bool { return target == ErrTargetDied }

// ErrInterrupted is wrapped when the session was cancelled (SIGINT/SIGTERM).
var ErrInterrupted = errors.New("interrupted")

// InterruptReason is why ctx ended, or err's text when it did not: what a session cut short
// records as Incomplete.
func InterruptReason(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			return c.Error()
		}
		return "interrupted"
	}
	return err.Error()
}
