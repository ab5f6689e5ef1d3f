package gate

import (
	"testing"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// A race decided per server CPU-second shows that figure and the pairs won on it, not raw
// throughput's, and its p99 only as context: here raw throughput lost 5 of 6 pairs (the client
// set the pace) while every pair won per CPU-second, and the p99 was 24% worse.
func TestHeadlineNamesTheDecidedFigure(t *testing.T) {
	var ps []session.Pair
	rps := []float64{-3, -2, -4, 1, -3, -2}
	for i, d := range rps {
		ps = append(ps, session.Pair{Index: i + 1, Order: []string{"AB", "BA"}[i%2],
			A: session.Run{Target: "binding", Scenario: "ping", RPS: 1000 * (1 + d/100), P99Ms: 4 * 1.24, RPSPerCPUSecond: 1450, ServerCPUPct: 99},
			B: session.Run{Target: "uws", Scenario: "ping", RPS: 1000, P99Ms: 4, RPSPerCPUSecond: 1000, ServerCPUPct: 99}})
	}
	s := stats.Summarize(ps, session.Thresholds{MinMedianDeltaPct: -5, MaxP99DeltaPct: 10}, stats.FixedDesign(0, 0.05))
	s.A, s.B, s.DecideOn = "binding", "uws", stats.MetricRPSPerCPUSec
	Apply(&s, nil)
	want := "PASS: binding +45.0% per server CPU-second vs uws, 6/6 pairs won, regression threshold passed; p99 +24.0% (saturation, context)"
	if s.Headline != want {
		t.Errorf("headline %q\nwant     %q", s.Headline, want)
	}
	if w, n := winsOn(&s, stats.MetricRPS); w != 1 || n != 6 {
		t.Errorf("raw throughput wins %d/%d, want 1/6 (the fixture must differ from the decided figure)", w, n)
	}
}

// An overloaded open-loop race is INCONCLUSIVE whatever its latency says, and its headline lists
// the latency as context.
func TestHeadlineOverloaded(t *testing.T) {
	better := []float64{-5, -6, -4, -7, -5, -6, -5, -4}
	s := openRace(better, better, -1)
	for i := range s.Pairs {
		s.Pairs[i].A.RPS = 4000
	}
	Apply(s, nil)
	want := "INCONCLUSIVE: binding p99 -5.0% vs uws at 5000 requests/s (open loop), 8 pairs, regression threshold inconclusive (sustained_rate); p50 -5.0% (overloaded, context), p99 -5.0% (overloaded, context)"
	if s.Headline != want {
		t.Errorf("headline %q\nwant     %q", s.Headline, want)
	}
}

// A race stopped before its first pair, with no counts, shows no figure: not "+0.0%, 0/0 pairs
// won", which reads as a measured tie.
func TestHeadlineNoPairs(t *testing.T) {
	s := stats.Summarize(nil, session.Thresholds{MinMedianDeltaPct: -5}, stats.FixedDesign(0, 0.05))
	s.A, s.B, s.DecideOn = "binding", "uws", stats.MetricRPSPerCPUSec
	s.Verdict, s.Incomplete = session.Incomplete, "interrupted (SIGINT) before the first pair"
	want := "INCOMPLETE: binding vs uws, no pairs measured, session incomplete (interrupted (SIGINT) before the first pair)"
	if got := Headline(&s); got != want {
		t.Errorf("headline %q\nwant     %q", got, want)
	}
}
