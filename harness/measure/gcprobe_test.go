package measure

import (
	"testing"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// A traced Go server's readings are per second over the kept windows, its live heap and GC CPU
// the last window's; an untraced target has none to give, and says so.
func TestGoGCRecord(t *testing.T) {
	p := gcProbe{targets: map[string]*targets.Target{
		"mine":     {Name: "mine", Runtime: targets.RuntimeGo, TracesGC: true},
		"fasthttp": {Name: "fasthttp", Runtime: targets.RuntimeGo},
	}}
	kept := []Window{
		{Closed: true, GoGC: &GoGCWindow{Cycles: 3, PauseMs: 0.6, Seconds: 1, End: targets.GCTotals{Cycles: 3, LiveMiB: 4, CPUPct: 2}}},
		{Closed: true, GoGC: &GoGCWindow{Cycles: 5, PauseMs: 1.0, Seconds: 1, End: targets.GCTotals{Cycles: 8, LiveMiB: 5, CPUPct: 3}}},
	}
	rec := session.Run{Target: "mine"}
	p.Record(&rec, nil, kept)
	for key, want := range map[string]float64{GoGCRateReading: 4, GoGCPauseReading: 0.8, GoGCLiveReading: 5, GoGCCPUReading: 3} {
		r := rec.Readings[key]
		if r.Value != want || r.NotRead != "" || r.Label != goGCLabels[key] {
			t.Errorf("%s: %+v, want %v", key, r, want)
		}
	}
	rec = session.Run{Target: "mine"}
	p.Record(&rec, nil, []Window{{Closed: true, GoGC: &GoGCWindow{Seconds: 1}}})
	if r := rec.Readings[GoGCLiveReading]; r.NotRead != "no collection was traced" || rec.Readings[GoGCRateReading].NotRead != "" {
		t.Errorf("no collection yet: %+v, rate %+v", r, rec.Readings[GoGCRateReading])
	}
	rec = session.Run{Target: "fasthttp"}
	p.Record(&rec, nil, kept)
	if r := rec.Readings[GoGCRateReading]; !r.NotApplicable || r.NotRead != notTraced {
		t.Errorf("a built-in Go target: %+v", r)
	}
	if rd := p.Open(localServer{&targets.Server{}}, Spec{Target: "fasthttp"}); rd != nil {
		t.Errorf("a built-in Go target was traced: %v", rd)
	}
}
