package stats

import (
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/session"
)

// histRun is a valid run whose histogram holds n requests of each latency in us (µs).
func histRun(t *testing.T, target string, n int64, us ...int64) session.Run {
	t.Helper()
	h := hdrhistogram.New(1, 60_000_000, 3)
	for _, v := range us {
		if err := h.RecordValues(v, n); err != nil {
			t.Fatal(err)
		}
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return session.Run{Target: target, Scenario: "ping", RPS: 1000, P50Ms: float64(us[0]) / 1000, P99Ms: float64(us[len(us)-1]) / 1000,
		P999Ms: float64(us[len(us)-1]) / 1000, Hist: string(b)}
}

// A side's merged percentiles are those of all its requests together, not a median of the
// runs' percentiles: one run with a 50 ms stall among three fast ones moves the merged p99.9
// (a quarter of the requests are slow) while the median of runs' p99.9 stays fast.
func TestMergedLatencyIsAllRequests(t *testing.T) {
	fast := func() session.Run { return histRun(t, "a", 1000, 100) }
	slow := histRun(t, "a", 1000, 50_000)
	failed := histRun(t, "a", 1000, 900_000)
	failed.Error = "target died"
	ps := []session.Pair{
		{Index: 0, Order: "AB", A: fast(), B: histRun(t, "b", 1000, 200)},
		{Index: 1, Order: "BA", A: fast(), B: histRun(t, "b", 1000, 200)},
		{Index: 2, Order: "AB", A: fast(), B: histRun(t, "b", 1000, 200)},
		{Index: 3, Order: "BA", A: slow, B: histRun(t, "b", 1000, 200)},
		{Index: 4, Order: "AB", A: failed, B: histRun(t, "b", 1000, 200)},
	}
	s := Summarize(ps, session.Thresholds{}, FixedDesign(0, (1-0.95)/2))
	a, b := s.MergedA, s.MergedB
	if a == nil || b == nil {
		t.Fatalf("merged %+v %+v", a, b)
	}
	if a.Runs != 4 || a.Requests != 4000 || b.Runs != 5 || b.Requests != 5000 {
		t.Errorf("runs/requests: a %+v, b %+v (the failed run must be left out)", a, b)
	}
	if a.P50Ms != 0.1 || a.P90Ms < 49.9 || a.P999Ms < 49.9 || a.MaxMs < 49.9 || a.MaxMs > 50.1 {
		t.Errorf("a merged %+v: want p50 0.1 ms, p90 and beyond the 50 ms stall", a)
	}
	if b.P50Ms != 0.2 || b.P99Ms != 0.2 {
		t.Errorf("b merged %+v", b)
	}
	if m := s.Runtime["p999_ms"].A; m == nil || *m > 0.2 {
		t.Errorf("median of runs' p99.9 %v: one slow run of four does not move it", m)
	}
	for _, p := range s.Pairs {
		if p.A.Hist != "" || p.B.Hist != "" {
			t.Fatal("summary pairs keep the histograms; they belong in raw.json")
		}
	}
	if ps[0].A.Hist == "" {
		t.Fatal("Summarize cleared its caller's runs")
	}
}

func TestMergedLatencyBadHistogram(t *testing.T) {
	if m, err := MergedLatency([]session.Run{{Target: "a", RPS: 1}}); m != nil || err != nil {
		t.Errorf("no histogram: %+v, %v", m, err)
	}
	_, err := MergedLatency([]session.Run{{Target: "a", RPS: 1, Hist: "bm90IGEgaGlzdG9ncmFt"}})
	if err == nil || !strings.Contains(err.Error(), "run 0 of a: latency histogram") {
		t.Errorf("err %v", err)
	}
}

func TestGeneratorBoundWarning(t *testing.T) {
	runs := []session.Run{{Open: &session.OpenLoop{GeneratorBound: true}}, {Open: &session.OpenLoop{}}, {}}
	if n := GeneratorBound(runs); n != 1 {
		t.Errorf("GeneratorBound %d", n)
	}
	if w := generatorBoundWarning(runs); !strings.HasPrefix(w, "1 of 3 runs were generator-bound") {
		t.Errorf("warning %q", w)
	}
}
