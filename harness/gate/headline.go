package gate

import (
	"fmt"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// Headline is the one line printed at the end of a race and at the top of the report, e.g.
// "binding +12.7% vs uws (pinned 20.30.0), 10/10 pairs won, regression threshold passed".
// The pinned version comes from s.BVersion; the verdict from s.Verdict (call Decide first, or
// use Apply). A race decided on throughput per server CPU-second says so, and one run with
// unequal server threads names both counts.
func Headline(s *session.Summary) string {
	a, b := s.A, s.B
	if s.UnequalThreads {
		a += fmt.Sprintf(" (%s)", threads(s.SideA.Threads))
		b += fmt.Sprintf(" (%s)", threads(s.SideB.Threads))
	}
	if s.BVersion != "" {
		b += " (pinned " + s.BVersion + ")"
	}
	delta, per := s.MedianDeltaPct, ""
	if decideOn(s) == stats.MetricRPSPerCPUSec {
		delta, per = s.Paired[stats.MetricRPSPerCPUSec].MedianPct, " per server CPU-second"
	}
	line := fmt.Sprintf("%s %+.1f%%%s vs %s, %d/%d pairs won, ", a, finiteOr0(delta), per, b, s.Wins, len(s.Pairs))
	switch d, counted := s.CounterDeltaPct["instructions"]; {
	case s.Rate != nil:
		line = openHeadline(s, a, b)
	case len(s.Pairs) == 0 && counted:
		// Decided by the deterministic counts before any pair (or stopped before the pairs).
		line = fmt.Sprintf("%s %+.1f%% instructions per response vs %s, no pairs, ", a, d, b)
	}
	if s.UnequalThreads {
		line = "UNEQUAL THREADS: " + line
	}
	stop := ""
	if s.Design != nil && s.Design.Kind == session.DesignSequential && s.Stop != nil && len(s.Pairs) > 0 {
		stop = ", " + StopText(s)
	}
	switch s.Verdict {
	case session.Pass:
		return line + "regression threshold passed" + stop
	case session.Fail:
		return line + "regression threshold failed" + firstCause(s, session.Fail) + stop
	case session.Inconclusive:
		return line + "regression threshold inconclusive" + firstCause(s, session.Inconclusive) + stop
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

// StopText says how a race's pairs ended: "decided after 8 of at most 30 pairs in 1m52s",
// "undecided after 30 of at most 30 pairs in 6m2s (its last look)", "undecided after 20 of at
// most 30 pairs in 5m0s (the session's 5m0s ran out)", "all 6 pairs of a fixed design in 1m30s".
func StopText(s *session.Summary) string {
	st, d := s.Stop, s.Design
	if st == nil || d == nil {
		return ""
	}
	in := " in " + (time.Duration(st.ElapsedS*10) * time.Second / 10).String()
	if d.Kind == session.DesignFixed {
		return fmt.Sprintf("all %d pairs of a fixed design%s", st.Pairs, in)
	}
	of := fmt.Sprintf(" %d of at most %d pairs%s", st.Pairs, d.MaxPairs, in)
	switch {
	case st.Pairs == 0 && st.Reason == session.StopDecided:
		return "decided by the deterministic counts before any pair"
	case st.Pairs == 0 && st.Reason == session.StopSessionFail:
		return "not run: an earlier race of the session FAILed, which decided its verdict"
	}
	switch st.Reason {
	case session.StopDecided:
		return "decided after" + of
	case session.StopMaxPairs:
		return "undecided after" + of + " (its last look)"
	case session.StopMaxTime:
		return "undecided after" + of + fmt.Sprintf(" (the session's %s ran out)", time.Duration(d.MaxTimeS*float64(time.Second)))
	case session.StopSessionFail:
		return "stopped after" + of + " (an earlier race of the session FAILed: the verdict was decided)"
	case session.StopInterrupted:
		return "interrupted after" + of + ", before deciding"
	}
	return "stopped after" + of
}

// firstCause names the first check with the given verdict, briefly: ": p99", ": too few pairs
// (need 6)".
func firstCause(s *session.Summary, verdict string) string {
	for _, c := range s.Checks {
		if c.Verdict != verdict {
			continue
		}
		if verdict == session.Inconclusive && c.Interval == nil && c.N > 0 && strings.Contains(c.Reason, "too few pairs") {
			return fmt.Sprintf(" (too few pairs: need %d)", EvenUp(stats.MinSamples(s.CILevel)))
		}
		return " (" + c.Metric + topFunction(s, c.Metric) + ")"
	}
	return ""
}

func threads(n int) string {
	switch n {
	case 0:
		return "threads unknown"
	case 1:
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}

// finiteOr0 guards the headline against NaN from hand-edited files.
func finiteOr0(x float64) float64 {
	if x != x || x > 1e300 || x < -1e300 {
		return 0
	}
	return x
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
