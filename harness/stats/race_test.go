package stats

import (
	"math"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// seedPairs are the ten pairs of the release page this project automates (seed 001).
var seedPairs = [][4]float64{ // rps A, rps B, p99 A, p99 B
	{481759, 429215, 4.053, 4.475}, {484113, 425257, 3.974, 4.475},
	{499080, 434250, 3.896, 4.387}, {500261, 448291, 3.896, 4.301},
	{497510, 439557, 3.896, 4.387}, {483383, 441113, 4.053, 4.387},
	{506037, 430500, 3.819, 4.475}, {495532, 434787, 3.896, 4.387},
	{495049, 443162, 3.896, 4.301}, {490719, 440558, 3.974, 4.387},
}

func makePairs() []session.Pair {
	var ps []session.Pair
	for i, v := range seedPairs {
		order := "AB"
		if i%2 == 1 {
			order = "BA"
		}
		ps = append(ps, session.Pair{Index: i + 1, Order: order,
			A: session.Run{Target: "binding", Scenario: "ping", RPS: v[0], P95Ms: 3.6, P99Ms: v[2]},
			B: session.Run{Target: "uws", Scenario: "ping", RPS: v[1], P95Ms: 4.1, P99Ms: v[3]}})
	}
	return ps
}

func TestSummarizeSeedPage(t *testing.T) {
	s := Summarize(makePairs(), session.Thresholds{MinMedianDeltaPct: -2}, FixedDesign(0, (1-0.95)/2))
	if !near(s.MedianDeltaPct, 12.71, 0.01) {
		t.Errorf("median delta %.3f, want 12.71 as published", s.MedianDeltaPct)
	}
	if s.Wins != 10 || s.A != "binding" || s.B != "uws" || s.Kind != "race" {
		t.Errorf("wins %d a %q b %q kind %q", s.Wins, s.A, s.B, s.Kind)
	}
	if !near(s.MinDeltaPct, 9.58, 0.01) || !near(s.MaxDeltaPct, 17.55, 0.01) {
		t.Errorf("min/max %.2f/%.2f", s.MinDeltaPct, s.MaxDeltaPct)
	}
	// 10 pairs at 95%: the 2nd and 9th smallest deltas, coverage 97.85%.
	if s.CIPct == nil || !near(s.CIPct[0], 11.39, 0.01) || !near(s.CIPct[1], 14.93, 0.01) || !near(s.CIConfidence, 0.9785, 0.0001) {
		t.Errorf("CI %v confidence %v", s.CIPct, s.CIConfidence)
	}
	if s.SchemaVersion != session.SchemaVersion || s.CILevel != 0.95 {
		t.Errorf("schema %d level %v", s.SchemaVersion, s.CILevel)
	}
	if !near(s.StatsA.MedianRPS, 495290.5, 0.01) || !near(s.StatsA.MedianP99Ms, 3.896, 1e-9) {
		t.Errorf("stats A %+v", s.StatsA)
	}
	// p99 is compared pair by pair too: the median of the ten per-pair p99 deltas.
	if p99 := s.Paired[MetricP99]; p99.N != 10 || !near(p99.MedianPct, -10.31, 0.01) || p99.CIPct == nil {
		t.Errorf("paired p99 %+v", p99)
	}
	var ab, ba []float64
	for _, p := range s.Pairs {
		if p.Order == "AB" {
			ab = append(ab, p.DeltaPct)
		} else {
			ba = append(ba, p.DeltaPct)
		}
	}
	if !near(s.OrderEffectPct, Mean(ab)-Mean(ba), 1e-9) {
		t.Errorf("order effect %v", s.OrderEffectPct)
	}
	if s.Thresholds.MinMedianDeltaPct != -2 || len(s.Warnings) != 0 || s.Counters != nil {
		t.Errorf("thresholds %+v warnings %v counters %v", s.Thresholds, s.Warnings, s.Counters)
	}
}

func TestSummarizeFailedPairAndCounters(t *testing.T) {
	ps := makePairs()[:4]
	ps[2].B.Error = "server exited"
	ps[2].B.RPS = 0
	ps[1].A.Errors = 3
	ps[0].A.ClientBound = true
	for i := range ps {
		ps[i].A.Counters = map[string]float64{"instructions": 9000 + float64(i)}
	}
	s := Summarize(ps, session.Thresholds{}, FixedDesign(0, (1-0.95)/2))
	if len(s.Pairs) != 4 {
		t.Fatal("a failed pair must stay in the session")
	}
	if s.Wins != 3 || s.StatsA.Errors != 3 {
		t.Errorf("wins %d errors %d", s.Wins, s.StatsA.Errors)
	}
	if len(s.Warnings) != 2 {
		t.Errorf("want a skipped-pair and a client-bound warning, got %q", s.Warnings)
	}
	// A of the failed pair finished, so its counters count: median of 9000..9003.
	if got := s.Counters["a"]["instructions"]; got != 9001.5 {
		t.Errorf("counter median %v", got)
	}
	if math.IsNaN(s.OrderEffectPct) {
		t.Error("NaN order effect")
	}
}

func TestSummarizeEmptyIsJSONSafe(t *testing.T) {
	s := Summarize(nil, session.Thresholds{}, FixedDesign(0, (1-0.95)/2))
	if s.CIPct != nil || len(s.Paired) != 0 {
		t.Errorf("an empty race has an interval: %+v", s)
	}
	for _, v := range []float64{s.MedianDeltaPct, s.StatsA.CVPct} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite value in empty summary: %+v", s)
		}
	}
}

func TestMatrix(t *testing.T) {
	// Target x is twice as fast as y; both drift up by 10% per slot: strong position bias.
	var runs []session.Run
	for round := 0; round < 4; round++ {
		for slot := 0; slot < 2; slot++ {
			target, base := "x", 200.0
			if (round+slot)%2 == 1 {
				target, base = "y", 100.0
			}
			runs = append(runs, session.Run{Target: target, Slot: slot, RPS: base * (1 + 0.1*float64(slot))})
		}
	}
	m := &session.Matrix{Targets: []string{"x", "y", "z"}, Runs: runs}
	SummarizeMatrix(m)
	if len(m.PerTarget) != 3 || m.PerTarget[0].Target != "x" || m.PerTarget[0].MeanRPS != 210 {
		t.Errorf("per target %+v", m.PerTarget)
	}
	if !near(m.SlotCorrelation, 1, 1e-9) {
		t.Errorf("slot correlation %v, want 1", m.SlotCorrelation)
	}
	// No drift: each target's rps identical in both slots.
	for i := range m.Runs {
		m.Runs[i].RPS = map[string]float64{"x": 200, "y": 100}[m.Runs[i].Target]
	}
	m.Warnings = nil
	SummarizeMatrix(m)
	if m.SlotCorrelation != 0 || len(m.Warnings) != 1 {
		t.Errorf("constant throughput: r %v warnings %q", m.SlotCorrelation, m.Warnings)
	}
}

func TestBusyWarning(t *testing.T) {
	ps := makePairs()[:6]
	if s := Summarize(ps, session.Thresholds{}, FixedDesign(0, 0.025)); len(s.Warnings) != 0 {
		t.Errorf("quiet machine warned: %q", s.Warnings)
	}
	ps[1].A.BusyPct, ps[4].B.StealPct = 35, 3.5
	s := Summarize(ps, session.Thresholds{}, FixedDesign(0, (1-0.95)/2))
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "2 of 12 runs started on a busy machine") || !strings.Contains(s.Warnings[0], "35% of the CPUs busy, 3.5% stolen") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// Interleaved windows: the pair's delta is the median of its per-window deltas, so a stretch
// of slow windows on one side moves it less than the totals would, and a uniform change of
// speed moves it by exactly that change.
func TestThroughputDeltaOfWindows(t *testing.T) {
	b := []float64{100, 100, 100, 100, 100}
	a := []float64{95, 95, 95, 95, 95}
	p := session.Pair{A: session.Run{RPS: 95, Windows: a}, B: session.Run{RPS: 100, Windows: b}}
	if d := ThroughputDelta(p); !near(d, -5, 1e-9) {
		t.Errorf("uniform -5%%: %v", d)
	}
	// B's process sat in a slow regime for two of five windows: the totals say A is 17% faster,
	// the windows that compare like with like say equal.
	p = session.Pair{A: session.Run{RPS: 100, Windows: []float64{100, 100, 100, 100, 100}},
		B: session.Run{RPS: 85.7, Windows: []float64{60, 70, 100, 100, 100}}}
	if d := ThroughputDelta(p); d != 0 || DeltaPct(p.A.RPS, p.B.RPS) < 15 {
		t.Errorf("dip on one side: %v", d)
	}
	// One window each, or unequal counts: the runs' throughput.
	p = session.Pair{A: session.Run{RPS: 110, Windows: []float64{110}}, B: session.Run{RPS: 100}}
	if d := ThroughputDelta(p); !near(d, 10, 1e-9) {
		t.Errorf("single window: %v", d)
	}
}

// TestRuntimeReadings: a reading is a runtime row under its key, with its label, its medians
// over the runs that carry it (0 is a value, not "not reported") and their delta.
func TestRuntimeReadings(t *testing.T) {
	run := func(v float64) session.Run {
		return session.Run{RPS: 1, Readings: map[string]session.Reading{"faults": {Value: v, Label: "faults per response", LowerIsBetter: true}}}
	}
	rt := Runtime([]session.Run{run(0), run(2), run(4)}, []session.Run{run(1), {RPS: 1}, run(1)}, 0)
	f, ok := rt["faults"]
	if !ok || f.Label != "faults per response" || !f.LowerIsBetter || f.A == nil || *f.A != 2 || f.B == nil || *f.B != 1 || f.DeltaPct == nil || *f.DeltaPct != 100 {
		t.Fatalf("faults row %+v (present %v)", f, ok)
	}
	if rt[MetricRPS].Label != "" {
		t.Error("a metric row carries a label")
	}
	share := session.Run{RPS: 1, Readings: map[string]session.Reading{"share": {Value: 40, Label: "a thread's CPU", Context: true}}}
	if f := Runtime([]session.Run{share}, nil, 0)["share"]; !f.Context || f.LowerIsBetter {
		t.Errorf("a context reading's row %+v", f)
	}
}

// TestRuntimeReadingsNotRead: a side whose runs did not read a reading has no value but the
// reason; a row neither side's runtime gives is left out, one that failed on both is kept.
func TestRuntimeReadingsNotRead(t *testing.T) {
	read := session.Run{RPS: 1, Readings: map[string]session.Reading{"elu": {Value: 97, Label: "ELU"}}}
	other := session.Run{RPS: 1, Readings: map[string]session.Reading{"elu": {Label: "ELU", NotRead: "not a node target", NotApplicable: true}}}
	failed := session.Run{RPS: 1, Readings: map[string]session.Reading{"elu": {Label: "ELU", NotRead: "socket did not answer"}}}
	rt := Runtime([]session.Run{read, read}, []session.Run{other, other}, 0)
	f := rt["elu"]
	if f.A == nil || *f.A != 97 || f.B != nil || f.NotReadB != "not a node target" || f.NotReadA != "" || f.DeltaPct != nil {
		t.Errorf("one side read: %+v", f)
	}
	if _, ok := Runtime([]session.Run{other}, []session.Run{other}, 0)["elu"]; ok {
		t.Error("a reading neither runtime gives has a row")
	}
	f, ok := Runtime([]session.Run{failed}, []session.Run{other}, 0)["elu"]
	if !ok || f.A != nil || f.NotReadA != "socket did not answer" {
		t.Errorf("a failed read: %+v (present %v)", f, ok)
	}
	// A failed run beside read ones: the median is of the read ones.
	f = Runtime([]session.Run{read, failed}, []session.Run{read}, 0)["elu"]
	if f.A == nil || *f.A != 97 || f.NotReadA != "" {
		t.Errorf("read and failed runs: %+v", f)
	}
}
