// Package gate turns a summarized session into a verdict: PASS, FAIL, INCONCLUSIVE or
// INCOMPLETE, with one check per limit (summary.json's checks, for programs) and one reason
// line per check (for people).
//
// Statistical checks (throughput, p99) compare paired per-run values measured in the same
// session, through the order-statistic interval of their median at the session's ci_level:
// PASS when the whole interval is on the good side of the limit, FAIL when it is wholly on the
// bad side, INCONCLUSIVE when it straddles the limit or there are too few pairs for a bounded
// interval. Deterministic checks (cachegrind instructions per response) compare A with B in the
// session, or A with a committed baseline. An absolute time is never carried across sessions.
//
// Precedence: INCOMPLETE (the session was cut short: never PASS, whatever its partial figures
// say) > FAIL > INCONCLUSIVE > PASS.
package gate

import (
	"fmt"
	"math"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// Decide applies s.Thresholds to s, and the baseline's counts when base is not nil (MatchBaseline
// has found the entry and refused mismatches first).
func Decide(s *session.Summary, base *Baseline) (verdict string, reasons []string, checks []session.Check) {
	d := &decision{verdict: session.Pass}
	if s.Rate != nil {
		checkOpenLoop(d, s)
	} else {
		checkThroughput(d, s)
		checkP99(d, s)
	}
	checkErrors(d, s)
	checkCounters(d, s)
	if base != nil {
		checkBaseline(d, s, base)
	}
	if s.Incomplete != "" {
		d.verdict = session.Incomplete
		d.reasons = append([]string{"session incomplete: " + s.Incomplete + " (never a PASS; the figures below cover what was measured)"}, d.reasons...)
	}
	return d.verdict, d.reasons, d.checks
}

// Apply runs Decide and stores the verdict, reasons, checks and headline in s, with the race's
// resolving power at its (possibly new) threshold.
func Apply(s *session.Summary, base *Baseline) {
	s.CounterDeltaPct = counterDeltas(s.Counters)
	s.Resolution = nil
	if s.Rate == nil { // an open loop's throughput is the rate: nothing to resolve
		s.Resolution = stats.ResolutionOf(s, decideOn(s))
	}
	s.Verdict, s.Reasons, s.Checks = Decide(s, base)
	s.Headline = Headline(s)
}

// decision accumulates checks and keeps the worst verdict seen.
type decision struct {
	verdict string
	reasons []string
	checks  []session.Check
}

func (d *decision) add(c session.Check) {
	switch c.Verdict {
	case session.Fail:
		d.verdict = session.Fail
		d.reasons = append(d.reasons, c.Reason+": FAILED")
	case session.Inconclusive:
		if d.verdict == session.Pass {
			d.verdict = session.Inconclusive
		}
		d.reasons = append(d.reasons, c.Reason+": inconclusive")
	default:
		d.reasons = append(d.reasons, c.Reason+": passed")
	}
	d.checks = append(d.checks, c)
}

func (d *decision) note(format string, a ...any) {
	d.reasons = append(d.reasons, fmt.Sprintf(format, a...))
}

// metricLabel is how reasons name a paired metric.
var metricLabel = map[string]string{
	stats.MetricRPS:          "throughput",
	stats.MetricRPSPerCPUSec: "throughput per server CPU-second",
	stats.MetricP99:          "p99",
	stats.MetricP50:          "p50",
}

// decideOn is the throughput metric the verdict rests on.
func decideOn(s *session.Summary) string {
	if s.DecideOn == stats.MetricRPSPerCPUSec {
		return stats.MetricRPSPerCPUSec
	}
	return stats.MetricRPS
}

// checkThroughput judges the throughput delta. A client-bound run (its server under
// ClientBoundPct of its CPU) measured the load generator, so the server could have done more:
// a PASS cannot rest on B's such runs (B may be faster than measured), nor a FAIL on A's.
func checkThroughput(d *decision, s *session.Summary) {
	metric := decideOn(s)
	c := pairedCheck(s, metric, s.Thresholds.MinMedianDeltaPct, "min")
	if r := s.Resolution; r != nil && c.Verdict == session.Inconclusive {
		c.Reason += fmt.Sprintf("; this race resolves ±%.1f%%: only a regression beyond %.1f%% would FAIL", r.HalfWidthPct, r.DetectablePct)
		if r.PairsForThreshold > 0 {
			c.Reason += fmt.Sprintf(", and about %d pairs would let an unchanged build PASS", r.PairsForThreshold)
		}
	}
	if metric == stats.MetricRPS {
		who := map[string]string{session.Pass: "b", session.Fail: "a"}[c.Verdict]
		if n, total := clientBound(s, who); who != "" && n > 0 {
			c.Reason += fmt.Sprintf(" — but %d of %s's %d runs were client-bound (server under %d%% of its CPU), so %s may be faster than measured; a profile with \"decide_on\": \"rps_per_cpu_second\" judges server efficiency instead",
				n, side(map[string]string{"a": s.A, "b": s.B}[who], who), total, ClientBoundPct, side(map[string]string{"a": s.A, "b": s.B}[who], who))
			c.Verdict = session.Inconclusive
		}
	}
	d.add(c)
}

func checkP99(d *decision, s *session.Summary) {
	d.add(pairedCheck(s, stats.MetricP99, s.Thresholds.MaxP99DeltaPct, "max"))
}

// pairedCheck judges one paired metric against limit: bound "min" wants the delta at or above
// it (throughput), "max" at or below it (latency).
func pairedCheck(s *session.Summary, metric string, limit float64, bound string) session.Check {
	label := metricLabel[metric]
	c := session.Check{Metric: metric, Limit: limit, Bound: bound, Verdict: session.Inconclusive}
	p, ok := s.Paired[metric]
	if !ok || p.N == 0 {
		c.Reason = label + ": no complete pair measured it"
		return c
	}
	c.N = p.N
	c.Delta = ptr(p.MedianPct)
	level := s.CILevel
	head := fmt.Sprintf("%s: median delta %+.2f%% over %d pairs", label, p.MedianPct, p.N)
	if p.CIPct == nil {
		need := EvenUp(stats.MinSamples(level))
		c.Reason = fmt.Sprintf("%s, limit %+.2f%%: too few pairs for a %s interval (need at least %d complete pairs; run --pairs %d)",
			head, limit, pctLevel(level), need, need)
		return c
	}
	lo, hi := p.CIPct[0], p.CIPct[1]
	c.Interval = &[2]float64{lo, hi}
	c.Confidence = ptr(p.Confidence)
	c.Reason = fmt.Sprintf("%s, %s interval [%+.2f%%, %+.2f%%] (real coverage %s), limit %+.2f%%",
		head, pctLevel(level), lo, hi, pctLevel(p.Confidence), limit)
	good, bad := lo >= limit, hi < limit // "min": the interval clears the limit from above
	if bound == "max" {
		good, bad = hi <= limit, lo > limit
	}
	switch {
	case good:
		c.Verdict = session.Pass
	case bad:
		c.Verdict = session.Fail
	default:
		c.Reason += " (the interval straddles the limit; more pairs or less noise would settle it)"
	}
	return c
}

func checkErrors(d *decision, s *session.Summary) {
	max := s.Thresholds.MaxErrors
	ea, eb := s.StatsA.Errors, s.StatsB.Errors
	c := session.Check{Metric: "errors", Delta: ptr(float64(ea)), Limit: float64(max), Bound: "max",
		Reason: fmt.Sprintf("errors: %s %d, %s %d, limit %d", side(s.A, "A"), ea, side(s.B, "B"), eb, max)}
	switch {
	case ea > max:
		c.Verdict = session.Fail
	case eb > max:
		c.Verdict = session.Inconclusive
		c.Reason += " (the reference failed requests, so the comparison is suspect)"
	default:
		c.Verdict = session.Pass
	}
	d.add(c)
	if (ea > 0 || eb > 0) && ea <= max && eb <= max {
		d.note("errors within the limit still make the comparison suspect: failed requests are not counted as responses")
	}
}

// ClientBoundPct is the share of its allotted CPU under which a server was not saturated.
const ClientBoundPct = 90

// clientBound counts the valid runs of one side ("a" or "b") marked client-bound.
func clientBound(s *session.Summary, sd string) (n, total int) {
	for _, p := range s.Pairs {
		if !stats.PairValid(p) {
			continue
		}
		r := p.A
		if sd == "b" {
			r = p.B
		}
		total++
		if r.ClientBound {
			n++
		}
	}
	return n, total
}

// EvenUp rounds a pair count up to an even number, so AB and BA orders come equally often.
func EvenUp(n int) int { return n + n%2 }

func pctLevel(x float64) string {
	s := fmt.Sprintf("%.2f", x*100)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + "%"
}

func ptr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// side names a side by its target, falling back to A/B for hand-made summaries.
func side(target, fallback string) string {
	if target == "" {
		return fallback
	}
	return target
}
