package counters

import (
	"math"
	"strings"
	"testing"
)

// fixtureResult is what Cachegrind makes of two runs, from two out files of fixtureCalls and
// twice as many calls (one call standing for one response) whose load phases took 2 and 3 s.
func fixtureResult(t *testing.T, fileN, file2N string) *CachegrindResult {
	t.Helper()
	res := &CachegrindResult{Target: "prog", Scenario: "calls", N: fixtureCalls}
	for i, f := range []string{fileN, file2N} {
		p, err := ParseCachegrindFile(f)
		if err != nil {
			t.Fatal(err)
		}
		calls := int64(fixtureCalls * (i + 1))
		res.Runs = append(res.Runs, CachegrindRun{Requests: calls, Responses: calls, Events: p.Totals, Profile: p, ElapsedS: float64(2 + i)})
	}
	if err := res.difference(); err != nil {
		t.Fatal(err)
	}
	return res
}

func rowsByName(rows []BreakdownRow) map[string]BreakdownRow {
	m := map[string]BreakdownRow{}
	for _, r := range rows {
		m[r.Name] = r
	}
	return m
}

// TestBreakdownViews: each function's own slope, demangled, and the by-file view that puts the
// inlined helper's instructions under its own file; the rows add up to the total.
func TestBreakdownViews(t *testing.T) {
	res := fixtureResult(t, fixtureN, fixture2N)
	if got := res.PerResponse[Instructions]; got != 354 {
		t.Fatalf("instructions per call %v, want 354", got)
	}
	fine := Resolution{Instructions: 0.5, Branches: 0.5, BranchMispredicts: 0.5, D1Misses: 0.5, LLMisses: 0.5, EstimatedCycles: 0.5}
	fn := NewBreakdown(ByFunction, Slopes(res.Runs[0].Profile, res.Runs[1].Profile, res.Responses, ByFunction), fine, fine)
	rows := rowsByName(fn.Rows)
	serve := rows["app::Server::serve(unsigned int)"]
	if serve.PerResponse[Instructions] != 346 || serve.PerResponse[Branches] != 20 || serve.PerResponse[BranchMispredicts] != 1 {
		t.Errorf("serve: %+v (want 346 instructions, 20 branches, 1 mispredict per call)", serve)
	}
	if r := rows["(below main)"]; r.PerResponse[Instructions] != 8 {
		t.Errorf("the loop in _start: %+v", r)
	}
	if fn.Rows[0].Name != serve.Name || math.Abs(serve.SharePct-100*346.0/354) > 0.01 {
		t.Errorf("first row %q share %.3f", fn.Rows[0].Name, serve.SharePct)
	}
	if _, ok := serve.PerResponse[D1Misses]; ok {
		t.Errorf("serve's d1-misses (none per call) shown: %v", serve.PerResponse)
	}
	file := NewBreakdown(ByFile, Slopes(res.Runs[0].Profile, res.Runs[1].Profile, res.Responses, ByFile), fine, fine)
	frows := rowsByName(file.Rows)
	if frows["helper.h"].PerResponse[Instructions] != 340 || frows["prog.cc"].PerResponse[Instructions] != 14 {
		t.Errorf("by file: %+v", file.Rows)
	}
	for _, b := range []*Breakdown{fn, file} {
		sum := b.Under.PerResponse[Instructions]
		for _, r := range b.Rows {
			sum += r.PerResponse[Instructions]
		}
		if sum != res.PerResponse[Instructions] || b.Total[Instructions] != sum {
			t.Errorf("%s view: rows add up to %v, total %v, measured %v", b.View, sum, b.Total[Instructions], res.PerResponse[Instructions])
		}
	}
}

// TestBreakdownResolution: at the resolution of 5 s of runs for 1000 responses (27 instructions
// per response for one row, 120 for a sum) the 8-instruction loop goes into the group under the
// resolution, counted, and the estimated cycles follow the model.
func TestBreakdownResolution(t *testing.T) {
	res := fixtureResult(t, fixtureN, fixture2N)
	if r := res.Functions.Resolution[Instructions]; r != 5400*5/1000.0 {
		t.Errorf("row resolution %v, want 5400/s × 5 s / 1000", r)
	}
	if len(res.Functions.Rows) != 1 || res.Functions.Under.Rows != 1 {
		t.Fatalf("rows %+v, under %+v", res.Functions.Rows, res.Functions.Under)
	}
	if _, ok := res.Functions.Under.PerResponse[Instructions]; ok {
		t.Errorf("the group's 8 instructions are under the resolution of a sum (120), shown as %v", res.Functions.Under.PerResponse)
	}
	// Per call: Ir 354, Dr 2, Dw 2, no misses: 358 L1 hits, estimated 358 cycles.
	if got := res.Estimated[EstimatedCycles]; got != 358 {
		t.Errorf("estimated cycles per call %v, want 358", got)
	}
	if e, ok := estimateCycles(map[string]int64{"Ir": 100, "Dr": 40, "Dw": 20, "I1mr": 5, "D1mr": 10, "D1mw": 5,
		"ILmr": 1, "DLmr": 2, "DLmw": 1}); !ok || e != (160-20)+5*(20-4)+35*4 {
		t.Errorf("estimate %d %v", e, ok)
	}
	if _, ok := estimateCycles(map[string]int64{"Ir": 100}); ok {
		t.Error("an estimate without the cache simulation")
	}
	for _, k := range CachegrindCounters {
		if _, ok := res.Resolution[k]; !ok {
			t.Errorf("no resolution for %s", k)
		}
	}
}

// TestBreakdownNeverShowsNoise: slopes made negative or tiny by noise are never shown as
// numbers, the resolution grows with the worst negative slope (the measurement's own noise),
// and nothing is dropped without being counted.
func TestBreakdownNeverShowsNoise(t *testing.T) {
	slopes := []Slope{
		{Name: "hot", Values: map[string]float64{Instructions: 900, D1Misses: 0.02, LLMisses: 0.5}},
		{Name: "gc", Values: map[string]float64{Instructions: -30, D1Misses: -0.4}},
		{Name: "timer", Values: map[string]float64{Instructions: 25, D1Misses: 0.3}},
		{Name: "tiny", Values: map[string]float64{Instructions: 0.5}},
	}
	row, total := Resolutions(slopes, 20000, 10, false)
	if row[Instructions] != 30 || row[D1Misses] != 0.4 {
		t.Errorf("resolution %v: want the worst negative slope (30, 0.4) above the noise rate's", row)
	}
	if row[LLMisses] != 62*10/20000.0 || total[Instructions] != 30 {
		t.Errorf("ll-misses row resolution %v (62/s × 10 s / N), instructions total %v", row[LLMisses], total[Instructions])
	}
	node, nodeTotal := Resolutions(slopes, 20000, 10, true)
	if node[Instructions] != 220000*10/20000.0 {
		t.Errorf("node's instructions resolution %v, want its own rate's 110", node[Instructions])
	}
	// uws's repeats at N = 10,000 lay 1,222 a response apart: V8's one-offs bound node's total.
	if nodeTotal[Instructions] != 12.5e6/20000 {
		t.Errorf("node's total instructions resolution %v, want one V8 one-off over N: 625", nodeTotal[Instructions])
	}
	// The monitor's rows of a count at pipelining 1 on a loaded VM (p1-a-binding-1: 214.8 per
	// response): the total is known to 2.2 times that, whatever the rates say.
	ticking := append([]Slope{{Name: "runtime.sysmon", Values: map[string]float64{Instructions: 71.1}},
		{Name: "runtime.retake", Values: map[string]float64{Instructions: 55.3}},
		{Name: "runtime.checkdead", Values: map[string]float64{Instructions: -2}}}, slopes...)
	if _, tot := Resolutions(ticking, 20000, 10, false); math.Abs(tot[Instructions]-2.2*126.4) > 1e-9 || row[Instructions] != 30 {
		t.Errorf("instructions total resolution %v with the monitor's rows at 126.4: want 2.2 × 126.4", tot[Instructions])
	}
	// At N = 2,000 one heap growth (86,000 instructions) in one run is 43 a response: the total
	// is known to no better, whatever the rows and rates say.
	if _, small := Resolutions(slopes, 2000, 1, false); small[Instructions] != 43 {
		t.Errorf("instructions total resolution %v at N = 2,000: want one heap growth's 43", small[Instructions])
	}
	b := NewBreakdown(ByFunction, slopes, row, total)
	if len(b.Rows) != 1 || b.Rows[0].Name != "hot" || b.Under.Rows != 3 {
		t.Fatalf("rows %+v under %+v", b.Rows, b.Under)
	}
	if _, ok := b.Rows[0].PerResponse[D1Misses]; ok {
		t.Errorf("hot's d1-misses 0.02 is under 0.4: %v", b.Rows[0].PerResponse)
	}
	check := func(what string, m map[string]float64) {
		for k, v := range m {
			if v < 0 {
				t.Errorf("%s shows a negative %s: %v", what, k, v)
			}
		}
	}
	check("row", b.Rows[0].PerResponse)
	check("under", b.Under.PerResponse)
	check("total", b.Total)
	if len(b.Slopes()) != 4 {
		t.Errorf("raw slopes %d, want all 4", len(b.Slopes()))
	}
}

// TestBreakdownStripped: a stripped binary's functions are one no-symbol row that says so,
// and the totals stand.
func TestBreakdownStripped(t *testing.T) {
	res := fixtureResult(t, strippedFixtureN, stripped2N)
	if res.PerResponse[Instructions] != 354 {
		t.Errorf("total %v, want 354 as with symbols", res.PerResponse[Instructions])
	}
	if len(res.Functions.Rows) != 1 || res.Functions.Rows[0].Name != NoSymbolCode || !res.Functions.Rows[0].NoSymbol {
		t.Fatalf("rows %+v", res.Functions.Rows)
	}
	if sh := res.Functions.NoSymbolShare(); sh != 100 {
		t.Errorf("no-symbol share %v", sh)
	}
	if !strings.Contains(strings.Join(res.Functions.Notes, "\n"), "100.0% of the instructions ran in code without a symbol") {
		t.Errorf("notes %q", res.Functions.Notes)
	}
	if res.Files.Rows[0].Name != NoDebugInfo {
		t.Errorf("by file: %+v", res.Files.Rows)
	}
}
