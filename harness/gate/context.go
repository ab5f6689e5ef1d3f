package gate

import (
	"fmt"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// A check gates only where it can decide and where its figure describes the server. Figures
// that fail either test are still measured, paired and shown with their interval, as context:
// in summary.json's context list and the reasons, never in the verdict or the false-FAIL budget.

// Why figures are context, as the reasons and the headline word it.
const (
	// WhySaturation: a closed loop keeps every connection's requests in flight, so both servers
	// run saturated and a response waits behind the queue of connections × pipelining; its p99
	// is that queue over the throughput plus the scheduler's noise, a figure of the machine. On
	// a busy 2-core VM `make bench` measured p99 deltas from -50% to +41% over 12 pairs that all
	// won on throughput: about 76 pairs to decide a +25% limit, where quick affords 14.
	WhySaturation = "saturation"
	// WhyOverloaded: an open loop offered more than a side served (checkOverload).
	WhyOverloaded = "overloaded"
	// WhyResolution: a deterministic count known to less than its limit (beyondBand).
	WhyResolution = "resolution"
)

// contextP99 reports a closed-loop race's p99 as context. Latency gates in an open loop at a
// fixed offered rate below both servers' capacity (checkOpenLoop).
func contextP99(d *decision, s *session.Summary) {
	d.aside(s, stats.MetricP99, WhySaturation, "a saturated closed loop's p99 is its queue over its throughput, not the server's latency; latency gates at a fixed rate (the profile's rate or rate_fraction)")
}

// aside adds metric's paired figures as context: why is the short tag the headline shows, more
// the reason's explanation.
func (d *decision) aside(s *session.Summary, metric, why, more string) {
	c := session.Check{Metric: metric, Verdict: session.Context}
	label := metricLabel[metric]
	p, ok := s.Paired[metric]
	if !ok || p.N == 0 {
		c.Reason = fmt.Sprintf("%s (%s): no complete pair measured it — context, not gated: %s", label, why, more)
		d.context = append(d.context, c)
		d.reasons = append(d.reasons, c.Reason)
		return
	}
	c.N, c.Delta = p.N, ptr(p.MedianPct)
	c.Reason = fmt.Sprintf("%s (%s): median delta %+.2f%% over %d pairs", label, why, p.MedianPct, p.N)
	if p.CIPct != nil {
		c.Interval, c.Confidence = p.CIPct, ptr(coverageAt(s, p, p.N))
		c.Reason += fmt.Sprintf(", %s interval [%+.2f%%, %+.2f%%]", PctLevel(s.CILevel), p.CIPct[0], p.CIPct[1])
	}
	c.Reason += " — context, not gated: " + more
	d.context = append(d.context, c)
	d.reasons = append(d.reasons, c.Reason)
}

// contextWhy is the tag a context figure of s carries in the headline: a count's is its
// resolution, a paired figure's the race's loop.
func contextWhy(s *session.Summary, c session.Check) string {
	if _, paired := metricLabel[c.Metric]; !paired {
		return WhyResolution
	}
	if s.Rate != nil {
		return WhyOverloaded
	}
	return WhySaturation
}
