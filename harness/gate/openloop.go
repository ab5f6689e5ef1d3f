package gate

import (
	"fmt"
	"math"
	"strconv"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// checkOpenLoop judges a race at a rate (s.Rate): the rate fixes the throughput, so the
// verdict rests on the paired per-run latency percentiles, p50 and p99, each through the
// interval of its median delta. A generator-bound run (the load generator fell behind its
// schedule) measured the generator as much as the server: a check with one behind it cannot
// PASS or FAIL. A rate one side did not sustain gates no latency at all (checkOverload).
func checkOpenLoop(d *decision, s *session.Summary) {
	d.note("throughput not gated: both sides were offered %s requests/s, so the verdict rests on latency", fmtRate(s.Rate.RPS))
	latency := []struct {
		metric string
		limit  float64
	}{{stats.MetricP50, s.Thresholds.MaxP50DeltaPct}, {stats.MetricP99, s.Thresholds.MaxP99DeltaPct}}
	if checkOverload(d, s) {
		for _, m := range latency {
			d.aside(s, m.metric, WhyOverloaded, "latency above a side's capacity is a queue growing through the window, not a latency at this rate")
		}
		return
	}
	bound, total := generatorBound(s)
	for _, m := range latency {
		c := pairedCheck(s, m.metric, m.limit, "max")
		if bound > 0 && c.Verdict != session.Inconclusive {
			c.Reason += fmt.Sprintf(" — but %d of the %d runs behind it were generator-bound (send lag p99 above the tolerance), so it cannot support a verdict", bound, total)
			c.Verdict = session.Inconclusive
		}
		d.add(c)
	}
}

// OverloadTolerancePct is how far below the offered rate a side's median run may answer and
// still count as having sustained it: at 1,000 requests/s over a 1 s window a Poisson schedule
// alone moves the count by about 3%.
const OverloadTolerancePct = 5

// MetricSustained names the check that a fixed rate was one both sides sustained.
const MetricSustained = "sustained_rate"

// checkOverload adds an INCONCLUSIVE check and reports true when a side's median run answered
// less than the offered rate (beyond OverloadTolerancePct): it was offered more than it serves,
// so its latency is a queue that grew for as long as the window lasted, and comparing it with
// the other side's says how long the window was, not which server is faster.
func checkOverload(d *decision, s *session.Summary) bool {
	rate := s.Rate.RPS
	a, b := sustained(s, func(p session.Pair) session.Run { return p.A }), sustained(s, func(p session.Pair) session.Run { return p.B })
	low := min(a, b)
	if rate <= 0 || low != low || low >= rate*(1-OverloadTolerancePct/100.0) {
		return false
	}
	d.add(session.Check{Metric: MetricSustained, Verdict: session.Inconclusive, Delta: ptr((low/rate - 1) * 100),
		Limit: -OverloadTolerancePct, Bound: "min",
		Reason: fmt.Sprintf("overloaded at %s requests/s: %s sustained %s requests/s, %s %s (median of its runs; a side more than %d%% under the rate was offered more than it serves): latency not gated; race at a rate both sides sustain (the profile's rate lower, or its rate_fraction below 1)",
			fmtRate(rate), side(s.A, "A"), fmtRate(round.To(a, 1)), side(s.B, "B"), fmtRate(round.To(b, 1)), OverloadTolerancePct)})
	return true
}

// sustained is the median rate one side's valid runs answered (NaN without one).
func sustained(s *session.Summary, run func(session.Pair) session.Run) float64 {
	var rps []float64
	for _, p := range s.Pairs {
		if stats.PairValid(p) {
			rps = append(rps, run(p).RPS)
		}
	}
	if len(rps) == 0 {
		return math.NaN()
	}
	return stats.Median(rps)
}

// generatorBound counts the generator-bound runs among the valid pairs' runs.
func generatorBound(s *session.Summary) (n, total int) {
	var runs []session.Run
	for _, p := range s.Pairs {
		if stats.PairValid(p) {
			runs = append(runs, p.A, p.B)
		}
	}
	return stats.GeneratorBound(runs), len(runs)
}

// openHeadline is an open-loop race's headline: A's p99 against B's at the rate.
func openHeadline(s *session.Summary, a, b string) string {
	p99 := s.Paired[stats.MetricP99]
	return fmt.Sprintf("%s p99 %+.1f%% vs %s at %s requests/s (open loop), %d pairs, ", a, finiteOr0(p99.MedianPct), b, fmtRate(s.Rate.RPS), p99.N)
}

// fmtRate prints a rate as "12000" or "1234.5".
func fmtRate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }
