package gate

import (
	"testing"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// openRace builds an open-loop race (both sides offered 5,000 requests/s) whose pair i has p50
// delta p50[i] and p99 delta p99[i] (percent, A against B), and A's throughput 3% under B's,
// below the closed-loop limit (-2%) yet within what counts as sustaining the rate: the rate
// fixes throughput, so it must not decide anything.
func openRace(p50, p99 []float64, boundPair int) *session.Summary {
	var ps []session.Pair
	for i := range p50 {
		open := &session.OpenLoop{Rate: 5000, SentRPS: 5000}
		a := session.Run{Target: "binding", Scenario: "ping", RPS: 4850, P50Ms: 0.1 * (1 + p50[i]/100), P99Ms: 2 * (1 + p99[i]/100), Open: open}
		if i == boundPair {
			a.Open = &session.OpenLoop{Rate: 5000, SentRPS: 4100, GeneratorBound: true}
		}
		ps = append(ps, session.Pair{Index: i, Order: []string{"AB", "BA"}[i%2], A: a,
			B: session.Run{Target: "uws", Scenario: "ping", RPS: 5000, P50Ms: 0.1, P99Ms: 2, Open: open}})
	}
	s := stats.Summarize(ps, session.Thresholds{MinMedianDeltaPct: -2, MaxP99DeltaPct: 10, MaxP50DeltaPct: 10}, stats.FixedDesign(0, (1-0.95)/2))
	s.Rate = &session.Rate{RPS: 5000}
	return &s
}

func TestOpenLoopGatesOnLatency(t *testing.T) {
	better := []float64{-5, -6, -4, -7, -5, -6, -5, -4}
	worse := []float64{30, 32, 28, 35, 31, 29, 33, 30}
	cases := []struct {
		name     string
		p50, p99 []float64
		bound    int
		want     string
		failedOn string
	}{
		{"lower latency passes despite 3% less throughput", better, better, -1, session.Pass, ""},
		{"a slower p99 fails", better, worse, -1, session.Fail, stats.MetricP99},
		{"a slower p50 fails", worse, better, -1, session.Fail, stats.MetricP50},
		{"a generator-bound run supports no verdict", better, worse, 3, session.Inconclusive, ""},
	}
	for _, c := range cases {
		s := openRace(c.p50, c.p99, c.bound)
		Apply(s, nil)
		if s.Verdict != c.want {
			t.Errorf("%s: verdict %s, want %s\n%v", c.name, s.Verdict, c.want, s.Reasons)
		}
		if check(s.Checks, stats.MetricRPS) != nil || check(s.Checks, stats.MetricP50) == nil || check(s.Checks, stats.MetricP99) == nil {
			t.Errorf("%s: checks %+v: want p50 and p99, no throughput", c.name, s.Checks)
		}
		if c.failedOn != "" && check(s.Checks, c.failedOn).Verdict != session.Fail {
			t.Errorf("%s: %s check %+v", c.name, c.failedOn, check(s.Checks, c.failedOn))
		}
		if c.bound >= 0 && !has(s.Reasons, "1 of the 16 runs behind it were generator-bound") {
			t.Errorf("%s: reasons %v", c.name, s.Reasons)
		}
		if !has(s.Reasons, "throughput not gated: both sides were offered 5000 requests/s") || s.Resolution != nil {
			t.Errorf("%s: reasons %v, resolution %+v", c.name, s.Reasons, s.Resolution)
		}
	}
	s := openRace(better, better, -1)
	Apply(s, nil)
	if want := "PASS: binding p99 -5.0% vs uws at 5000 requests/s (open loop), 8 pairs, regression threshold passed"; s.Headline != want {
		t.Errorf("headline %q, want %q", s.Headline, want)
	}
}

// A rate a side did not sustain gates no latency: the race is INCONCLUSIVE with the rate each
// side answered, and p50 and p99 are context, even where they would FAIL. A side 4% under the
// rate (within OverloadTolerancePct) still sustained it.
func TestOpenLoopOverloaded(t *testing.T) {
	worse := []float64{30, 32, 28, 35, 31, 29, 33, 30}
	for _, c := range []struct {
		name  string
		rpsA  float64
		want  string
		check bool
	}{
		{"A answered 4,000 of 5,000 requests/s", 4000, session.Inconclusive, true},
		{"A answered 4,800 of 5,000 requests/s", 4800, session.Fail, false},
	} {
		s := openRace(worse, worse, -1)
		for i := range s.Pairs {
			s.Pairs[i].A.RPS = c.rpsA
		}
		Apply(s, nil)
		sc := check(s.Checks, MetricSustained)
		if s.Verdict != c.want || (sc != nil) != c.check {
			t.Errorf("%s: %s, sustained-rate check %+v\n%q", c.name, s.Verdict, sc, s.Reasons)
			continue
		}
		if !c.check {
			continue
		}
		if check(s.Checks, stats.MetricP99) != nil || check(s.Context, stats.MetricP99) == nil || check(s.Context, stats.MetricP50) == nil ||
			!has(s.Reasons, "overloaded at 5000 requests/s: binding sustained 4000 requests/s, uws 5000") {
			t.Errorf("%s: checks %+v context %+v\n%q", c.name, s.Checks, s.Context, s.Reasons)
		}
	}
}
