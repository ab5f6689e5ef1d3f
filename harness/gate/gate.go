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
// has found the entry and refused mismatches first). Each instruction check's reason is followed
// by the first rows of its attribution in s.Attribution (Apply fills it). Figures reported as
// context (Apply stores them in s.Context) are in the reasons and never in the verdict.
func Decide(s *session.Summary, base *Baseline) (verdict string, reasons []string, checks []session.Check) {
	d := decide(s, base, currentRule)
	return d.verdict, d.reasons, d.checks
}

// rule is which checks gate. Only the current rule gates a race; the old one is kept to tell a
// re-gated session what it said under it (regate.go).
type rule struct {
	// closedP99 gates a closed-loop race's p99 against max_p99_delta_pct, as every race did
	// before a saturated closed loop's p99 became context (contextP99).
	closedP99 bool
}

var (
	currentRule = rule{}
	oldP99Rule  = rule{closedP99: true}
)

// decide is Decide under rule r.
func decide(s *session.Summary, base *Baseline, r rule) *decision {
	d := &decision{verdict: session.Pass}
	switch {
	case s.Rate != nil:
		checkOpenLoop(d, s)
	case r.closedP99:
		checkThroughput(d, s)
		d.add(pairedCheck(s, stats.MetricP99, s.Thresholds.MaxP99DeltaPct, "max"))
	default:
		checkThroughput(d, s)
		contextP99(d, s)
	}
	checkLiveSyscalls(d, s)
	checkErrors(d, s)
	checkCounters(d, s)
	checkCounterExcess(d, s)
	checkSyscalls(d, s)
	if base != nil {
		checkBaseline(d, s, base)
		checkBaselineSyscalls(d, s, base)
	}
	if s.Incomplete != "" {
		d.verdict = session.Incomplete
		d.reasons = append([]string{"session incomplete: " + s.Incomplete + " (never a PASS; the figures below cover what was measured)"}, d.reasons...)
	}
	return d
}

// Apply runs Decide and stores the verdict, reasons, checks, context figures and headline in s,
// with the race's resolving power at its (possibly new) threshold.
func Apply(s *session.Summary, base *Baseline) {
	s.CounterDeltaPct = counterDeltas(s.Counters)
	s.Resolution = nil
	if s.Rate == nil { // an open loop's throughput is the rate: nothing to resolve
		s.Resolution = stats.ResolutionOf(s, decideOn(s))
	}
	s.Attribution = attributions(s, base)
	d := decide(s, base, currentRule)
	s.Verdict, s.Reasons, s.Checks, s.Context = d.verdict, d.reasons, d.checks, d.context
	s.Headline = Headline(s)
}

// decision accumulates checks and keeps the worst verdict seen; context holds the figures
// reported beside the checks, which no verdict counts.
type decision struct {
	verdict string
	reasons []string
	checks  []session.Check
	context []session.Check
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
	case session.Context: // a check that cannot decide here: shown, never in the verdict
		d.context = append(d.context, c)
		d.reasons = append(d.reasons, c.Reason)
		return
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
	stats.MetricSyscalls:     "system calls per response (live load)",
}

// decideOn is the throughput metric the verdict rests on.
func decideOn(s *session.Summary) string {
	if s.DecideOn == stats.MetricRPSPerCPUSec {
		return stats.MetricRPSPerCPUSec
	}
	return stats.MetricRPS
}

// checkThroughput judges the throughput delta. Client-bound runs (their server under 90% of
// its CPU) are already in its interval at their bound (stats/clientbound.go), so a verdict read
// off it holds whatever headroom they hid.
func checkThroughput(d *decision, s *session.Summary) {
	metric := decideOn(s)
	c := pairedCheck(s, metric, s.Thresholds.MinMedianDeltaPct, "min")
	if s.Pooled {
		d.add(guard(c))
		return
	}
	if n := s.Paired[metric].BoundedRuns; n > 0 {
		c.Reason += fmt.Sprintf("; %d client-bound run(s) (server under %d%% of its CPU) entered the interval at their bound, throughput scaled to a saturated server", n, ClientBoundPct)
	}
	if r := s.Resolution; r != nil && c.Verdict == session.Inconclusive {
		c.Reason += fmt.Sprintf("; this race resolves ±%.1f%%: only a regression beyond %.1f%% would FAIL", r.HalfWidthPct, r.DetectablePct)
	}
	d.add(c)
}

// pairedCheck judges one paired metric against limit: bound "min" wants the delta at or above
// it (throughput), "max" at or below it (latency). It walks the metric's looks in order, and the
// first whose interval lies wholly on one side of the limit decides: a sign-test bound crossed
// at any look of the design is what its error budget covers (stats/sequential.go), whichever
// limit is asked, so re-gating a saved race at another limit walks the same looks.
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
	head := fmt.Sprintf("%s: median delta %+.2f%% over %d pairs", label, p.MedianPct, p.N)
	looks := p.Looks
	if len(looks) == 0 { // a summary written before schema 3: one look, after all pairs
		looks = []session.Look{{Pairs: p.N, Interval: p.CIPct}}
	}
	var at *session.Look
	for i := range looks {
		l := looks[i]
		at = &l
		if l.Interval == nil {
			c.Looks = append(c.Looks, l)
			continue
		}
		lo, hi := l.Interval[0], l.Interval[1]
		good, bad := lo >= limit, hi < limit // "min": the interval clears the limit from above
		if bound == "max" {
			good, bad = hi <= limit, lo > limit
		}
		if good || bad {
			l.Decision = map[bool]string{true: session.Pass, false: session.Fail}[good]
			c.Verdict, c.DecidedAt = l.Decision, l.Pairs
		}
		c.Looks = append(c.Looks, l)
		if c.DecidedAt > 0 {
			break
		}
	}
	if at.Interval == nil {
		c.Reason = fmt.Sprintf("%s, limit %+.2f%%: %s", head, limit, tooFew(s))
		return c
	}
	c.Interval, c.Confidence = at.Interval, ptr(coverageAt(s, p, at.Pairs))
	c.Reason = fmt.Sprintf("%s, %s interval [%+.2f%%, %+.2f%%] %s, limit %+.2f%%",
		head, PctLevel(s.CILevel), at.Interval[0], at.Interval[1], lookText(s, p, at.Pairs), limit)
	if c.DecidedAt == 0 {
		c.PairsNeeded = stats.PairsNeeded(s.Design, stats.EvidenceOf(s.Pairs, metric), limit)
		c.Reason += " (the interval straddles the limit; " + neededText(c.PairsNeeded) + ")"
	}
	return c
}

// coverageAt is the real coverage of the interval at the look at pairs: a design's, or a
// pre-schema-3 summary's recorded one.
func coverageAt(s *session.Summary, p session.Paired, pairs int) float64 {
	if s.Design == nil {
		return p.Confidence
	}
	return stats.Coverage(s.Design, pairs)
}

// lookText says where an interval stands in the race's design: "(real coverage 96.88%)" after a
// fixed design's pairs, "(look 2 of 13, at 8 of at most 30 pairs; simultaneous coverage 99.27%)"
// in a sequential one.
func lookText(s *session.Summary, p session.Paired, pairs int) string {
	cov := PctLevel(coverageAt(s, p, pairs))
	d := s.Design
	if d == nil || d.Kind != session.DesignSequential {
		return "(real coverage " + cov + ")"
	}
	i := 0
	for i < len(d.Looks)-1 && d.Looks[i] < pairs {
		i++
	}
	return fmt.Sprintf("(look %d of %d, at %d of at most %d pairs; simultaneous coverage %s)", i+1, len(d.Looks), pairs, d.MaxPairs, cov)
}

// tooFew is why a check has no interval yet.
func tooFew(s *session.Summary) string {
	if d := s.Design; d != nil && d.Kind == session.DesignSequential {
		for i, n := range d.Looks {
			if d.Bounds[i] <= n {
				return fmt.Sprintf("too few pairs for a bounded %s interval (this design's first bounded look is at %d pairs)", PctLevel(s.CILevel), n)
			}
		}
	}
	need := EvenUp(stats.MinSamples(s.CILevel))
	return fmt.Sprintf("too few pairs for a %s interval (need at least %d complete pairs; race with pairs %d)", PctLevel(s.CILevel), need, need)
}

// neededText words PairsNeeded for a reason line.
func neededText(n int) string {
	if n == 0 {
		return "its deltas lean to neither side of the limit, so more pairs would not settle it on this evidence"
	}
	return fmt.Sprintf("about %d pairs would decide it at this spread", n)
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

// EvenUp rounds a pair count up to an even number, so AB and BA orders come equally often.
func EvenUp(n int) int { return n + n%2 }

// PctLevel writes a confidence level in percent with at most two decimals: "95%", "96.67%".
func PctLevel(x float64) string {
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

// Settled reports whether a race can stop measuring pairs: a check FAILed (the verdict is FAIL
// whatever the rest would say), or every statistical check (those with looks) is decided.
func Settled(s *session.Summary) bool {
	undecided := false
	for _, c := range s.Checks {
		switch {
		case c.Verdict == session.Fail:
			return true
		case len(c.Looks) > 0 && c.DecidedAt == 0:
			undecided = true
		}
	}
	return !undecided
}
