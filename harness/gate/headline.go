package gate

import (
	"fmt"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
)

// Headline is the one line printed at the end of a race and at the top of the report, e.g.
// "binding +12.7% vs uws (pinned 20.30.0), 10/10 pairs won, regression threshold passed".
// The pinned version comes from s.BVersion; the verdict from s.Verdict (call Decide first,
// or use Apply).
func Headline(s *session.Summary) string {
	b := s.B
	if s.BVersion != "" {
		b += " (pinned " + s.BVersion + ")"
	}
	line := fmt.Sprintf("%s %+.1f%% vs %s, %d/%d pairs won, ", s.A, finiteOr0(s.MedianDeltaPct), b, s.Wins, len(s.Pairs))
	switch s.Verdict {
	case session.Pass:
		return line + "regression threshold passed"
	case session.Fail:
		return line + "regression threshold failed"
	case session.Inconclusive:
		return line + "regression threshold inconclusive"
	case session.Incomplete:
		why := s.Incomplete
		if why == "" {
			why = "cut short"
		}
		return line + "session incomplete (" + strings.TrimSpace(why) + ")"
	default:
		return line + "regression threshold not evaluated"
	}
}

// ExitCode maps a verdict to the CLI's exit status: PASS 0, FAIL 1, INCOMPLETE 2,
// INCONCLUSIVE 3. Anything else is an error (2).
func ExitCode(verdict string) int {
	switch verdict {
	case session.Pass:
		return 0
	case session.Fail:
		return 1
	case session.Inconclusive:
		return 3
	default:
		return 2
	}
}
