// Package gate turns a summarized session into a verdict: PASS, FAIL, INCONCLUSIVE or
// INCOMPLETE, with one reason line per threshold so a release engineer sees why.
//
// Every check compares figures measured in the same session (throughput and p99 ratios of A to
// B), or deterministic per-response counts against a baseline session. An absolute time is never
// carried across sessions: the machine under the baseline may have been faster or busier.
//
// Precedence: INCOMPLETE (the session was cut short: never PASS, whatever its partial figures
// say) > FAIL > INCONCLUSIVE > PASS.
package gate

import (
	"fmt"
	"math"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// Decide applies s.Thresholds to s (and the counter limits to baseline, when given).
//
// Throughput, with t = MinMedianDeltaPct, m the median pair delta and [lo, hi] its 95% CI:
//   - passed       when m >= t and lo >= t: the whole interval clears the threshold;
//   - failed       when m <  t and hi <  t: the whole interval is below it;
//   - inconclusive otherwise, i.e. the interval straddles t (lo < t <= hi), or, in the odd case
//     of a median outside its own interval, the median and interval disagree. More pairs narrow
//     the interval and settle it.
//
// p99: failed when P99DeltaPct > MaxP99DeltaPct (the threshold is applied as written; 0 means A's
// median p99 may not exceed B's at all).
//
// Errors: failed when A's errors exceed MaxErrors. Errors on B exceeding MaxErrors make the
// verdict INCONCLUSIVE: B's throughput counted only complete responses, so a failing reference
// can make A look better than it is. Errors on either side within the limit are still named.
//
// Counters: see checkCounters.
func Decide(s *session.Summary, baseline *session.Summary) (verdict string, reasons []string) {
	d := &decision{verdict: session.Pass}

	valid := 0
	for _, p := range s.Pairs {
		if stats.PairValid(p) {
			valid++
		}
	}
	if valid == 0 {
		d.inconclusive("throughput: no complete pair to compare")
	} else {
		checkThroughput(d, s, valid)
		checkP99(d, s)
	}
	checkErrors(d, s)
	checkCounters(d, s, baseline)

	if s.Incomplete != "" {
		d.verdict = session.Incomplete
		d.reasons = append([]string{"session incomplete: " + s.Incomplete + " (never a PASS; the figures below cover what was measured)"}, d.reasons...)
	}
	return d.verdict, d.reasons
}

// Apply runs Decide and stores the verdict, reasons and headline in s.
func Apply(s *session.Summary, baseline *session.Summary) {
	s.Verdict, s.Reasons = Decide(s, baseline)
	s.Headline = Headline(s)
}

// decision accumulates reasons and keeps the worst verdict seen.
type decision struct {
	verdict string
	reasons []string
}

func (d *decision) pass(format string, a ...any) {
	d.reasons = append(d.reasons, fmt.Sprintf(format, a...)+": passed")
}

func (d *decision) fail(format string, a ...any) {
	d.reasons = append(d.reasons, fmt.Sprintf(format, a...)+": FAILED")
	d.verdict = session.Fail
}

func (d *decision) inconclusive(format string, a ...any) {
	d.reasons = append(d.reasons, fmt.Sprintf(format, a...)+": inconclusive")
	if d.verdict == session.Pass {
		d.verdict = session.Inconclusive
	}
}

func (d *decision) note(format string, a ...any) {
	d.reasons = append(d.reasons, fmt.Sprintf(format, a...))
}

func checkThroughput(d *decision, s *session.Summary, valid int) {
	t, m := s.Thresholds.MinMedianDeltaPct, s.MedianDeltaPct
	lo, hi := s.CI95Pct[0], s.CI95Pct[1]
	msg := fmt.Sprintf("throughput: median delta %+.2f%% over %d pairs, 95%% CI [%+.2f%%, %+.2f%%], threshold %+.2f%%",
		m, valid, lo, hi, t)
	switch {
	case m >= t && lo >= t:
		d.pass("%s", msg)
	case m < t && hi < t:
		d.fail("%s", msg)
	default:
		d.inconclusive("%s (the interval straddles the threshold; more pairs would settle it)", msg)
	}
}

func checkP99(d *decision, s *session.Summary) {
	max, got := s.Thresholds.MaxP99DeltaPct, s.P99DeltaPct
	msg := fmt.Sprintf("p99: %s %.2f ms vs %s %.2f ms, delta %+.2f%%, limit %+.2f%%",
		side(s.A, "A"), s.StatsA.MedianP99Ms, side(s.B, "B"), s.StatsB.MedianP99Ms, got, max)
	if s.StatsA.MedianP99Ms == 0 || s.StatsB.MedianP99Ms == 0 {
		d.inconclusive("p99: not measured on both sides")
		return
	}
	if got > max {
		d.fail("%s", msg)
	} else {
		d.pass("%s", msg)
	}
}

func checkErrors(d *decision, s *session.Summary) {
	max := s.Thresholds.MaxErrors
	ea, eb := s.StatsA.Errors, s.StatsB.Errors
	msg := fmt.Sprintf("errors: %s %d, %s %d, limit %d", side(s.A, "A"), ea, side(s.B, "B"), eb, max)
	switch {
	case ea > max:
		d.fail("%s", msg)
	case eb > max:
		d.inconclusive("%s (the reference failed requests, so the comparison is suspect)", msg)
	default:
		d.pass("%s", msg)
	}
	if (ea > 0 || eb > 0) && ea <= max && eb <= max {
		d.note("errors within the limit still make the comparison suspect: failed requests are not counted as responses")
	}
}

// finiteOr0 guards reasons against NaN from hand-edited files.
func finiteOr0(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// side names a side by its target, falling back to A/B for hand-made summaries.
func side(target, fallback string) string {
	if target == "" {
		return fallback
	}
	return target
}
