package gate

import (
	"fmt"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// Headline is the one line printed at the end of a race and at the top of the report, e.g.
// "PASS: binding +12.7% throughput vs uws (pinned 20.30.0), 10/10 pairs won, regression
// threshold passed; p99 -23.9% (saturation, context)". It opens with the verdict, names the
// figure the verdict rests on (throughput, throughput per server CPU-second, or p99 at a rate)
// with the pairs won on that figure, and ends with the figures reported as context, so that
// nothing it shows reads as what decided. The pinned version comes from s.BVersion; the
// verdict from s.Verdict (call Decide first, or use Apply). One run with unequal server threads
// names both counts.
func Headline(s *session.Summary) string {
	a, b := s.A, s.B
	if s.UnequalThreads {
		a += fmt.Sprintf(" (%s)", threads(s.SideA.Threads))
		b += fmt.Sprintf(" (%s)", threads(s.SideB.Threads))
	}
	if s.BVersion != "" {
		b += " (pinned " + s.BVersion + ")"
	}
	metric := decideOn(s)
	won, of := winsOn(s, metric)
	line := fmt.Sprintf("%s %+.1f%% %s vs %s, %d/%d pairs won, ", a, finiteOr0(s.Paired[metric].MedianPct), DecidedFigure(metric), b, won, of)
	switch d, counted := s.CounterDeltaPct["instructions"]; {
	case s.Rate != nil:
		line = openHeadline(s, a, b)
	case len(s.Pairs) == 0 && counted:
		// Decided by the deterministic counts before any pair (or stopped before the pairs).
		line = fmt.Sprintf("%s %+.1f%% instructions per response vs %s, no pairs, ", a, d, b)
	case len(s.Pairs) == 0:
		// Stopped before its first pair, uncounted: there is no figure to show, and "+0.0%,
		// 0/0 pairs won" would read as a measured tie.
		line = fmt.Sprintf("%s vs %s, no pairs measured, ", a, b)
	}
	verdict := s.Verdict
	if verdict == "" {
		verdict = "NOT EVALUATED"
	}
	line = verdict + ": " + line
	if s.UnequalThreads {
		line = "UNEQUAL THREADS: " + line
	}
	stop := ""
	if s.Design != nil && s.Design.Kind == session.DesignSequential && s.Stop != nil && len(s.Pairs) > 0 {
		stop = ", " + StopText(s)
	}
	return line + outcome(s) + stop + contextText(s)
}

// outcome is the headline's words for the verdict.
func outcome(s *session.Summary) string {
	switch s.Verdict {
	case session.Pass:
		if s.Pooled {
			return "guard passed (the set's pooled check decides throughput)"
		}
		return "regression threshold passed"
	case session.Fail:
		return "regression threshold failed" + firstCause(s, session.Fail)
	case session.Inconclusive:
		return "regression threshold inconclusive" + firstCause(s, session.Inconclusive)
	case session.Incomplete:
		why := s.Incomplete
		if why == "" {
			why = "cut short"
		}
		return "session incomplete (" + strings.TrimSpace(why) + ")"
	default:
		return "regression threshold not evaluated"
	}
}

// DecidedFigure names the throughput figure a closed-loop verdict rests on, as the headline and
// the reports' headline cards word it.
func DecidedFigure(metric string) string {
	if metric == stats.MetricRPSPerCPUSec {
		return "per server CPU-second"
	}
	return "throughput"
}

// winsOn counts the pairs A won on metric, out of the pairs that measured it: the headline's
// "pairs won" must be on the figure it shows.
func winsOn(s *session.Summary, metric string) (won, of int) {
	if metric == stats.MetricRPS {
		return s.Wins, len(s.Pairs)
	}
	deltas := stats.EvidenceOf(s.Pairs, metric).ForPass
	for _, x := range deltas {
		if x > 0 {
			won++
		}
	}
	return won, len(deltas)
}

// contextText lists the context figures after the verdict: "; p99 -23.9% (saturation, context)".
func contextText(s *session.Summary) string {
	var parts []string
	for _, c := range s.Context {
		if c.Delta != nil {
			label := metricLabel[c.Metric]
			if label == "" {
				label = c.Metric
			}
			parts = append(parts, fmt.Sprintf("%s %+.1f%% (%s, context)", label, *c.Delta, contextWhy(s, c)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; " + strings.Join(parts, ", ")
}

// StopText says how a race's pairs ended: "decided after 8 of at most 30 pairs in 1m52s",
// "undecided after 30 of at most 30 pairs in 6m2s (its last look)", "undecided after 20 of at
// most 30 pairs in 5m0s (the session's 5m0s ran out)", "all 6 pairs of a fixed design in 1m30s".
// A session re-gated by other rules or thresholds can be decided on pairs its race stopped on
// undecided, or the reverse; the text then says both, so the line agrees with its verdict.
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
	decided := s.Verdict == session.Pass || s.Verdict == session.Fail
	switch st.Reason {
	case session.StopDecided:
		if s.Verdict == session.Inconclusive {
			// Re-gated at other thresholds: the pairs that decided the race no longer do.
			return "stopped after" + of + ", decided at its last look as raced; undecided on its pairs as gated now"
		}
		return "decided after" + of
	case session.StopMaxPairs, session.StopMaxTime:
		why := " (its last look)"
		if st.Reason == session.StopMaxTime {
			why = fmt.Sprintf(" (the session's %s ran out)", time.Duration(d.MaxTimeS*float64(time.Second)))
		}
		if decided {
			// Re-gated by other rules or thresholds (gate DIR), or a FAIL that is no look's (errors
			// after the last look): the pairs decide, though the looks did not.
			return "stopped after" + of + why + ", undecided at its looks; decided on its pairs as gated"
		}
		return "undecided after" + of + why
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
