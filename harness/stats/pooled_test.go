package stats

import (
	"math"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// pairsOf are pairs whose A side served (1+d/100) times B's 1,000 responses a second; a NaN
// delta is a pair whose A run failed.
func pairsOf(deltas ...float64) []session.Pair {
	var ps []session.Pair
	for i, d := range deltas {
		a := session.Run{Target: "a", RPS: 1000 * (1 + d/100), RPSPerCPUSecond: 1000 * (1 + d/100)}
		if math.IsNaN(d) {
			a = session.Run{Target: "a", Error: "did not start"}
		}
		ps = append(ps, session.Pair{Index: i + 1, Order: []string{"AB", "BA"}[i%2], A: a,
			B: session.Run{Target: "b", RPS: 1000, RPSPerCPUSecond: 1000}})
	}
	return ps
}

// A pooled pair is the geometric mean of the races' ratios at its index: +100% and -50% pool
// to 0; a pair index some race did not complete, or did not reach, pools nothing.
func TestPooledEvidence(t *testing.T) {
	e := PooledEvidence([][]session.Pair{pairsOf(100, 10, math.NaN(), 21), pairsOf(-50, 10, 5)}, MetricRPS)
	want := []float64{0, 10}
	if len(e.ForPass) != 2 || len(e.ForFail) != 2 {
		t.Fatalf("pooled %+v, want %v", e, want)
	}
	for i, w := range want {
		if math.Abs(e.ForPass[i]-w) > 1e-9 || math.Abs(e.ForFail[i]-w) > 1e-9 {
			t.Errorf("pooled pair %d: %v / %v, want %v", i, e.ForPass[i], e.ForFail[i], w)
		}
	}
	if e := PooledEvidence(nil, MetricRPS); len(e.ForPass) != 0 {
		t.Errorf("no races pooled %+v", e)
	}
}

// A client-bound run enters a pooled pair at its bound on the side that makes the verdict
// harder: B's for a PASS, A's for a FAIL.
func TestPooledEvidenceClientBound(t *testing.T) {
	a, b := pairsOf(0), pairsOf(0)
	b[0].B.ClientBound, b[0].B.SaturationPct = true, 50 // B could have served twice as much
	e := PooledEvidence([][]session.Pair{a, b}, MetricRPS)
	if pass, fail := e.ForPass[0], e.ForFail[0]; math.Abs(pass-100*(math.Sqrt(0.5)-1)) > 1e-9 || fail != 0 {
		t.Errorf("for a PASS %v (want %v), for a FAIL %v (want 0)", pass, 100*(math.Sqrt(0.5)-1), fail)
	}
	if iv := PooledInterval(e, 0.95); iv != nil {
		t.Errorf("one pooled pair bounds nothing: %v", *iv)
	}
}
