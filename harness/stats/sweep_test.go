package stats

import (
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func sweepPoint(target string, rate, p99 float64, bound bool, failed string) session.SweepPoint {
	return session.SweepPoint{Target: target, Rate: rate, Run: session.Run{Target: target, RPS: rate, P99Ms: p99, Error: failed, Hist: "x",
		Open: &session.OpenLoop{Rate: rate, GeneratorBound: bound}}}
}

// The SLO rate is the highest asked rate up to which every finished, not generator-bound run
// kept p99 at or under the SLO, walking the rates upwards: a point under the SLO past the first
// crossing does not count; "none" (null) when the lowest rate crossed it.
func TestSummarizeSweep(t *testing.T) {
	sw := session.Sweep{Targets: []string{"a", "b", "c"}, SLOMs: 1, Points: []session.SweepPoint{
		sweepPoint("a", 3000, 0.95, true, ""), // over nothing, but generator-bound: neither sets nor ends
		sweepPoint("a", 1000, 0.4, false, ""),
		sweepPoint("a", 2000, 0.9, false, ""),
		sweepPoint("a", 4000, 1.4, false, ""),  // the crossing
		sweepPoint("a", 5000, 0.8, false, ""),  // under again, past the crossing: noise
		sweepPoint("a", 6000, 0.2, false, "x"), // failed
		sweepPoint("b", 1000, 1.5, false, ""),
		sweepPoint("b", 2000, 0.5, false, ""),
		sweepPoint("c", 1000, 1.0, false, ""), // at the SLO counts
		sweepPoint("c", 2000, 2.0, true, ""),  // over, but generator-bound: does not end it
		sweepPoint("c", 3000, 0.7, false, ""),
	}}
	SummarizeSweep(&sw)
	got := map[string]session.SweepTarget{}
	for _, st := range sw.PerTarget {
		got[st.Target] = st
	}
	if a := got["a"]; a.SLORate == nil || *a.SLORate != 2000 || a.Points != 5 || a.GeneratorBound != 1 {
		t.Errorf("a: %+v (rate %v), want 2000 over 5 finished points, 1 generator-bound", a, a.SLORate)
	}
	if b := got["b"]; b.SLORate != nil || b.Points != 2 {
		t.Errorf("b: %+v, want none", b)
	}
	if c := got["c"]; c.SLORate == nil || *c.SLORate != 3000 {
		t.Errorf("c: %+v", c)
	}
	if len(sw.Warnings) != 1 || !strings.HasPrefix(sw.Warnings[0], "2 points were generator-bound") {
		t.Errorf("warnings %v", sw.Warnings)
	}
	for _, p := range sw.Points {
		if p.Run.Hist != "" {
			t.Fatal("the summary keeps a histogram; it belongs in raw.json")
		}
	}
	sw.SLOMs = 0
	SummarizeSweep(&sw)
	if sw.PerTarget[0].SLORate != nil || len(sw.Warnings) != 1 {
		t.Errorf("without an SLO: %+v, warnings %v", sw.PerTarget[0], sw.Warnings)
	}
}
