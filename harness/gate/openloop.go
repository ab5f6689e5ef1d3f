package gate

import (
	"fmt"
	"strconv"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// checkOpenLoop judges a race at a rate (s.Rate): the rate fixes the throughput, so the
// verdict rests on the paired per-run latency percentiles, p50 and p99, each through the
// interval of its median delta. A generator-bound run (the load generator fell behind its
// schedule) measured the generator as much as the server: a check with one behind it cannot
// PASS or FAIL.
func checkOpenLoop(d *decision, s *session.Summary) {
	d.note("throughput not gated: both sides were offered %s requests/s, so the verdict rests on latency", fmtRate(s.Rate.RPS))
	bound, total := generatorBound(s)
	for _, m := range []struct {
		metric string
		limit  float64
	}{{stats.MetricP50, s.Thresholds.MaxP50DeltaPct}, {stats.MetricP99, s.Thresholds.MaxP99DeltaPct}} {
		c := pairedCheck(s, m.metric, m.limit, "max")
		if bound > 0 && c.Verdict != session.Inconclusive {
			c.Reason += fmt.Sprintf(" — but %d of the %d runs behind it were generator-bound (send lag p99 above the tolerance), so it cannot support a verdict", bound, total)
			c.Verdict = session.Inconclusive
		}
		d.add(c)
	}
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
