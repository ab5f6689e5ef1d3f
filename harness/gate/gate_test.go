package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// raceP builds a summarized session whose pair i has throughput delta rps[i] and p99 delta
// p99[i] (percent, A against B), at a 95% interval per check.
func raceP(rps, p99 []float64) *session.Summary {
	var ps []session.Pair
	for i, d := range rps {
		pd := 0.0
		if i < len(p99) {
			pd = p99[i]
		}
		ps = append(ps, session.Pair{Index: i + 1, Order: []string{"AB", "BA"}[i%2],
			A: session.Run{Target: "binding", Scenario: "ping", RPS: 1000 * (1 + d/100), P99Ms: 4 * (1 + pd/100), RPSPerCPUSecond: 1000 * (1 + d/100)},
			B: session.Run{Target: "uws", Scenario: "ping", RPS: 1000, P99Ms: 4, RPSPerCPUSecond: 1000}})
	}
	s := stats.Summarize(ps, session.Thresholds{MinMedianDeltaPct: -2, MaxP99DeltaPct: 10}, stats.FixedDesign(0, (1-0.95)/2))
	s.BVersion = "20.30.0"
	return &s
}

// race is raceP with equal p99 on both sides.
func race(deltas ...float64) *session.Summary { return raceP(deltas, nil) }

func has(reasons []string, sub string) bool {
	for _, r := range reasons {
		if strings.Contains(r, sub) {
			return true
		}
	}
	return false
}

func check(checks []session.Check, metric string) *session.Check {
	for i := range checks {
		if checks[i].Metric == metric {
			return &checks[i]
		}
	}
	return nil
}

func TestThroughput(t *testing.T) {
	cases := []struct {
		name   string
		s      *session.Summary
		want   string
		reason string
	}{
		{"clear win", race(12, 13, 11, 14, 12, 13, 12, 15, 11, 12), session.Pass, "throughput: median delta +12.00% over 10 pairs, 95% interval [+11.00%, +14.00%]"},
		{"clearly slower", race(-8, -9, -7, -10, -8, -9, -8, -7, -9, -8), session.Fail, "throughput"},
		// Median around the threshold with a wide spread: the interval straddles -2%.
		{"straddles", race(-6, 3, -4, 2, -1, -3, 1, -5, 4, -2), session.Inconclusive, "straddles"},
	}
	for _, c := range cases {
		v, rs, _ := Decide(c.s, nil)
		if v != c.want || !has(rs, c.reason) {
			t.Errorf("%s: %s %q (CI %v), want %s", c.name, v, rs, c.s.CIPct, c.want)
		}
	}
}

// Too few pairs for a bounded interval is INCONCLUSIVE naming the minimum, never a PASS on one
// pair's zero-width "interval".
func TestTooFewPairs(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		deltas := make([]float64, n)
		for i := range deltas {
			deltas[i] = 150 // a huge, consistent win
		}
		s := race(deltas...)
		Apply(s, nil)
		c := check(s.Checks, stats.MetricRPS)
		if s.Verdict != session.Inconclusive || c == nil || c.Verdict != session.Inconclusive || c.Interval != nil ||
			!has(s.Reasons, "need at least 6 complete pairs; race with pairs 6") || !strings.Contains(s.Headline, "(too few pairs: need 6)") {
			t.Errorf("%d pairs: %s %q %+v %q", n, s.Verdict, s.Reasons, c, s.Headline)
		}
	}
	// At 97.5% per check (a profile of two races) seven are needed: rounded up to eight.
	s := race(150, 150, 150, 150, 150, 150)
	s = summarizeAt(s, 0.975)
	if v, rs, _ := Decide(s, nil); v != session.Inconclusive || !has(rs, "need at least 8 complete pairs") {
		t.Errorf("6 pairs at 97.5%%: %s %q", v, rs)
	}
}

func summarizeAt(s *session.Summary, level float64) *session.Summary {
	out := stats.Summarize(s.Pairs, s.Thresholds, stats.FixedDesign(0, (1-level)/2))
	out.BVersion = s.BVersion
	return &out
}

func TestIntervalBoundaries(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{
		{0, 1, session.Pass},            // lower bound exactly at the threshold clears it
		{-2, 0, session.Inconclusive},   // upper bound at the threshold: not clearly below
		{-2, -0.5, session.Fail},        // wholly below
		{-0.5, 1, session.Inconclusive}, // straddles
	} {
		s := race(5, 5, 5, 5, 5, 5)
		s.Thresholds.MinMedianDeltaPct = 0
		p := s.Paired[stats.MetricRPS]
		p.Looks = []session.Look{{Pairs: 6, Interval: &[2]float64{c.lo, c.hi}}}
		s.Paired[stats.MetricRPS] = p
		if v, rs, _ := Decide(s, nil); v != c.want {
			t.Errorf("CI [%v %v]: %s %q, want %s", c.lo, c.hi, v, rs, c.want)
		}
	}
}

// A closed-loop race's p99 is context: whatever its deltas, the verdict is throughput's, and the
// p99 is reported with its interval in s.Context. The old rule, which regate.go still applies to
// tell a saved session what it said, judged the same per-pair deltas: PASS, FAIL, INCONCLUSIVE.
func TestClosedLoopP99IsContext(t *testing.T) {
	win := []float64{12, 13, 12, 14, 12, 13}
	for _, c := range []struct {
		name    string
		p99     []float64
		oldRule string
	}{
		{"lower tails", []float64{-5, -4, -6, -5, -3, -5}, session.Pass},
		{"wholly over the limit", []float64{25, 22, 30, 24, 26, 21}, session.Fail},
		{"noise straddles", []float64{-8, 14, -3, 12, 2, -6}, session.Inconclusive},
	} {
		s := raceP(win, c.p99)
		Apply(s, nil)
		pc := check(s.Context, stats.MetricP99)
		if s.Verdict != session.Pass || check(s.Checks, stats.MetricP99) != nil || pc == nil || pc.Verdict != session.Context ||
			pc.Interval == nil || !has(s.Reasons, "p99 (saturation): median delta") || !has(s.Reasons, "context, not gated") {
			t.Errorf("%s: %s %q checks %+v context %+v", c.name, s.Verdict, s.Reasons, s.Checks, s.Context)
		}
		old := decide(s, nil, oldP99Rule)
		if oc := check(old.checks, stats.MetricP99); old.verdict != c.oldRule || oc == nil || oc.Verdict != c.oldRule || len(old.context) != 0 {
			t.Errorf("%s under the old rule: %s %q", c.name, old.verdict, old.reasons)
		}
	}
}

// boundRace is a race of pairs whose A/B throughputs are given, with the runs named in bound
// ("a3": A's run of pair 3) client-bound at 88% of their CPU.
func boundRace(a, b []float64, limit float64, bound ...string) *session.Summary {
	var ps []session.Pair
	for i := range a {
		p := session.Pair{Index: i, Order: []string{"AB", "BA"}[i%2],
			A: session.Run{Target: "binding", Scenario: "ping", RPS: a[i], P99Ms: 4, ServerCPUPct: 99, SaturationPct: 99},
			B: session.Run{Target: "uws", Scenario: "ping", RPS: b[i], P99Ms: 4, ServerCPUPct: 99, SaturationPct: 99}}
		for _, w := range bound {
			r := &p.A
			if w[0] == 'b' {
				r = &p.B
			}
			if w[1:] == strconv.Itoa(i) {
				r.ClientBound, r.ServerCPUPct, r.SaturationPct = true, 88, 88
			}
		}
		ps = append(ps, p)
	}
	s := stats.Summarize(ps, session.Thresholds{MinMedianDeltaPct: limit, MaxP99DeltaPct: 25}, stats.FixedDesign(len(ps), 0.025))
	return &s
}

// TestClientBound: a client-bound run enters the throughput interval at its bound (rps / its
// saturation), so a verdict stands when the headroom could not change it and is INCONCLUSIVE
// only when it could.
func TestClientBound(t *testing.T) {
	// make bench on 2026-12-01: binding +195% vs uws, 6/6 pairs, interval [+165.6%, +227.8%];
	// one uws run at 88% CPU. At its bound uws is 1/0.88 = 1.14 times faster in that pair,
	// which cannot bring +165% near -5%: PASS (the old rule vetoed it).
	a := []float64{2.95e6, 3.1e6, 2.9e6, 3.28e6, 2.66e6, 3.0e6}
	b := []float64{1e6, 1e6, 1e6, 1e6, 1e6, 1e6}
	s := boundRace(a, b, -5, "b2")
	Apply(s, nil)
	c := check(s.Checks, stats.MetricRPS)
	if s.Verdict != session.Pass || c.Interval[0] < 130 || !has(s.Reasons, "1 client-bound run(s)") {
		t.Errorf("make bench case: %s %+v %q", s.Verdict, c, s.Reasons)
	}
	// A close race, B client-bound in two pairs: +3% with B possibly 14% faster there. The
	// plain interval clears -2%; the bounded one does not.
	close := boundRace([]float64{103, 104, 103, 102, 104, 103}, []float64{100, 100, 100, 100, 100, 100}, -2, "b0", "b1")
	Apply(close, nil)
	if c := check(close.Checks, stats.MetricRPS); close.Verdict != session.Inconclusive || c.Interval[0] > -9 {
		t.Errorf("close race, B client-bound: %s %+v", close.Verdict, c)
	}
	// The same race without the client-bound runs PASSes: the bound, not the noise, held it.
	if plain := boundRace([]float64{103, 104, 103, 102, 104, 103}, []float64{100, 100, 100, 100, 100, 100}, -2); func() string { Apply(plain, nil); return plain.Verdict }() != session.Pass {
		t.Errorf("close race, saturated: %s %q", plain.Verdict, plain.Reasons)
	}
	// A clearly slower A, client-bound once: A at its bound is still far below: FAIL stands.
	slow := boundRace([]float64{70, 71, 69, 70, 72, 70}, []float64{100, 100, 100, 100, 100, 100}, -2, "a3")
	if Apply(slow, nil); slow.Verdict != session.Fail {
		t.Errorf("slow A, one client-bound run: %s %q", slow.Verdict, slow.Reasons)
	}
	// A just slower, client-bound in every run: its bound could make up the gap: INCONCLUSIVE.
	near := boundRace([]float64{94, 95, 94, 95, 94, 95}, []float64{100, 100, 100, 100, 100, 100}, -2, "a0", "a1", "a2", "a3", "a4", "a5")
	if Apply(near, nil); near.Verdict != session.Inconclusive {
		t.Errorf("A -5%%, client-bound throughout: %s %q", near.Verdict, near.Reasons)
	}
	// Nor would more pairs settle it: every delta is below the limit as measured and above it
	// at A's bound, so the pairs-needed estimate reads the bounded views and names none (read
	// off the plain deltas, 6 of 6 below, it said "about 10").
	if c := check(near.Checks, stats.MetricRPS); c.PairsNeeded != 0 || !strings.Contains(c.Reason, "lean to neither side") {
		t.Errorf("A -5%%, client-bound throughout: pairs needed %d, %q", c.PairsNeeded, c.Reason)
	}
	// Per server CPU-second needs no bound: a server's efficiency is its own, however the
	// client paced it.
	eff := boundRace([]float64{103, 104, 103, 102, 104, 103}, []float64{100, 100, 100, 100, 100, 100}, -2, "b0", "b1")
	for i := range eff.Pairs {
		eff.Pairs[i].A.RPSPerCPUSecond, eff.Pairs[i].B.RPSPerCPUSecond = 1030, 1000
	}
	*eff = stats.Summarize(eff.Pairs, eff.Thresholds, eff.Design)
	eff.DecideOn = stats.MetricRPSPerCPUSec
	Apply(eff, nil)
	if eff.Verdict != session.Pass || check(eff.Checks, stats.MetricRPSPerCPUSec) == nil ||
		!strings.Contains(eff.Headline, "per server CPU-second") || !has(eff.Reasons, "throughput per server CPU-second") {
		t.Errorf("decided per CPU-second: %s %q %q", eff.Verdict, eff.Reasons, eff.Headline)
	}
}

func TestErrors(t *testing.T) {
	ok := []float64{12, 13, 12, 14, 12, 13}
	s := race(ok...)
	s.StatsA.Errors = 1
	if v, rs, _ := Decide(s, nil); v != session.Fail || !has(rs, "errors: binding 1") {
		t.Errorf("A errors: %s %q", v, rs)
	}
	s = race(ok...)
	s.StatsB.Errors = 4
	if v, rs, _ := Decide(s, nil); v != session.Inconclusive || !has(rs, "suspect") {
		t.Errorf("B errors: %s %q", v, rs)
	}
	s = race(ok...)
	s.Thresholds.MaxErrors = 10
	s.StatsA.Errors = 2
	if v, rs, _ := Decide(s, nil); v != session.Pass || !has(rs, "suspect") {
		t.Errorf("errors within limit: %s %q", v, rs)
	}
}

// withCounts is a passing race with cachegrind counts per side and an A-vs-B limit.
func withCounts(a, b float64) *session.Summary {
	s := race(12, 13, 12, 14, 12, 13)
	s.CountersMode = "cachegrind"
	s.Counters = map[string]map[string]float64{"a": {"instructions": a}, "b": {"instructions": b}}
	s.CounterSamples = map[string]map[string][]float64{"a": {"instructions": {a, a * 1.001, a}}, "b": {"instructions": {b, b, b * 0.999}}}
	s.Thresholds.CounterMaxDeltaPct = map[string]float64{"instructions": 1}
	s.Thresholds.CounterMaxGrowthPct = map[string]float64{"instructions": 1}
	s.SideA.Build = map[string]string{"kind": "release", "profile_sha256": "abc"}
	return s
}

func TestCountersAgainstB(t *testing.T) {
	// binding-plain against binding: 2,514 vs 2,214 instructions per response.
	v, rs, checks := Decide(withCounts(2514, 2214), nil)
	c := check(checks, "instructions")
	if v != session.Fail || c == nil || c.Delta == nil || math.Abs(*c.Delta-13.55) > 0.01 || c.Confidence != nil || !has(rs, "median of 3 repetitions per side") {
		t.Errorf("plain vs release: %s %q %+v", v, rs, c)
	}
	if v, rs, _ := Decide(withCounts(2214.5, 2214), nil); v != session.Pass || !has(rs, "delta +0.023%") {
		t.Errorf("A/A: %s %q", v, rs)
	}
	// Sides that settled on different numbers of repetitions say so.
	s := withCounts(2214.5, 2214)
	s.CounterSamples["b"]["instructions"] = []float64{2214, 2230}
	if _, rs, _ := Decide(s, nil); !has(rs, "median of 3 / 2 repetitions") {
		t.Errorf("uneven repetitions: %q", rs)
	}
	s = withCounts(2214, 2214)
	s.CountersMode = "perf"
	if v, rs, _ := Decide(s, nil); v != session.Inconclusive || !has(rs, "not gated without deterministic counts") {
		t.Errorf("perf mode: %s %q", v, rs)
	}
	s = withCounts(2214, 2214)
	delete(s.Counters["b"], "instructions")
	s.CountersUnsupported = map[string]string{"cachegrind": "valgrind not found"}
	if v, rs, _ := Decide(s, nil); v != session.Inconclusive || !has(rs, "valgrind not found") {
		t.Errorf("missing: %s %q", v, rs)
	}
}

// TestCountsDecideNothingWithinTheirResolution: with each side's count known to its resolution
// (p10: about 10 instructions of 1,830), a delta that could be the limit's either side is
// INCONCLUSIVE, naming the band; beyond it the check still decides both ways.
func TestCountsDecideNothingWithinTheirResolution(t *testing.T) {
	for _, c := range []struct {
		a, b, res float64
		want      string
	}{
		{1840, 1830, 10, session.Inconclusive}, // +0.55% ± 0.55%: could be over +1%
		{1840, 1830, 4, session.Pass},          // ± 0.22%: under +1% whatever the noise
		{1854, 1830, 10, session.Inconclusive}, // +1.31%: over the limit, but within the band
		{1870, 1830, 10, session.Fail},         // +2.19%: over the limit by more than the band
		{2514, 2214, 12, session.Fail},         // binding-plain vs binding
		{1830, 1830, 0, session.Pass},          // no resolution recorded (a session before it): as before
		// Pipelining 1 on a loaded VM (release-linux's A/A): ±2.7%, wider than the limit, so the
		// check cannot pass an unchanged build and is context; a gross regression still FAILs.
		{3230.7, 3247.1, 88, session.Context},
		{3780, 3247.1, 88, session.Fail},
	} {
		s := withCounts(c.a, c.b)
		if c.res > 0 {
			s.CounterResolution = map[string]map[string]float64{"a": {"instructions": c.res}, "b": {"instructions": c.res}}
		}
		Apply(s, nil)
		ch := check(s.Checks, "instructions")
		if c.want == session.Context {
			ch = check(s.Context, "instructions")
		}
		why := map[string]string{session.Inconclusive: "within the counts' resolution", session.Context: "wider than the limit itself"}[c.want]
		if ch == nil || ch.Verdict != c.want || !strings.Contains(ch.Reason, why) {
			t.Errorf("%.0f vs %.0f, resolution %.0f: %s %q, want the instruction check %s", c.a, c.b, c.res, s.Verdict, s.Reasons, c.want)
		}
	}
	// A context count holds no verdict: the race's other checks pass, so does it.
	s := withCounts(3230.7, 3247.1)
	s.CounterResolution = map[string]map[string]float64{"a": {"instructions": 88}, "b": {"instructions": 88}}
	if Apply(s, nil); s.Verdict != session.Pass || !strings.Contains(s.Headline, "instructions -0.5% (resolution, context)") {
		t.Errorf("verdict %s, headline %q", s.Verdict, s.Headline)
	}
}

// TestBaselineDecidesNothingWithinTheResolution: a baseline keeps its count's resolution, and
// growth within both resolutions of the limit is INCONCLUSIVE; beyond them it decides.
func TestBaselineDecidesNothingWithinTheResolution(t *testing.T) {
	withRes := func(instr float64) *session.Summary {
		s := withCounts(instr, 7700)
		s.CounterResolution = map[string]map[string]float64{"a": {"instructions": 10}}
		return s
	}
	b := baselineOf(withRes(1830))
	if b.Entries[0].Resolution["instructions"] != 10 {
		t.Fatalf("baseline entry %+v: no resolution kept", b.Entries[0])
	}
	for _, c := range []struct {
		instr float64
		want  string
	}{{1832, session.Pass}, {1845, session.Inconclusive}, {1860, session.Fail}} {
		s := withRes(c.instr)
		m, err := MatchBaseline(s, b, "baselines/ci.json")
		if err != nil {
			t.Fatal(err)
		}
		Apply(s, m)
		if bc := check(s.Checks, "baseline:instructions"); bc == nil || bc.Verdict != c.want {
			t.Errorf("%v against 1830 (±10 each): %+v, want %s", c.instr, bc, c.want)
		}
	}
}

func baselineOf(s *session.Summary) *session.Baseline {
	b, err := NewBaseline([]*session.Summary{s}, "results/x")
	if err != nil {
		panic(err)
	}
	return b
}

func TestBaseline(t *testing.T) {
	old := withCounts(2214, 7700)
	b := baselineOf(old)
	for _, c := range []struct {
		instr float64
		want  string
	}{{2230, session.Pass}, {2214 * 1.05, session.Fail}} {
		s := withCounts(c.instr, 7700)
		m, err := MatchBaseline(s, b, "baselines/ci.json")
		if err != nil {
			t.Fatal(err)
		}
		Apply(s, m)
		bc := check(s.Checks, "baseline:instructions")
		if s.Verdict != c.want || bc == nil || bc.Verdict != c.want || !has(s.Reasons, "note, not gated") {
			t.Errorf("%v instructions: %s %q", c.instr, s.Verdict, s.Reasons)
		}
	}
	// Mismatches are refused, naming what differs.
	for _, c := range []struct {
		name   string
		change func(s *session.Summary)
		want   string
	}{
		{"target", func(s *session.Summary) { s.A = "binding-plain" }, `target: baseline "binding", session "binding-plain"`},
		{"build kind", func(s *session.Summary) { s.SideA.Build = map[string]string{"kind": "plain", "profile_sha256": "abc"} }, `build kind: baseline "release", session "plain"`},
		{"profile", func(s *session.Summary) {
			s.SideA.Build = map[string]string{"kind": "release", "profile_sha256": "def"}
		}, "build profile_sha256"},
		{"scenario", func(s *session.Summary) { s.Scenario = "params" }, "no entry for scenario params"},
		{"pipelining", func(s *session.Summary) { s.Pipelining = 1 }, "pipelining 1"},
		{"mode", func(s *session.Summary) { s.CountersMode = "perf" }, "counters mode"},
	} {
		s := withCounts(2214, 7700)
		c.change(s)
		if _, err := MatchBaseline(s, b, "baselines/ci.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	noCounts := race(1, 2, 3, 4, 5, 6)
	if _, err := NewBaseline([]*session.Summary{noCounts}, "x"); err == nil || !strings.Contains(err.Error(), `race with counters "cachegrind"`) {
		t.Errorf("baseline from a session without counts: %v", err)
	}
}

func TestIncompleteNeverPasses(t *testing.T) {
	s := race(12, 13, 12, 14, 12, 13)
	s.Incomplete = "uws crashed in pair 4"
	if v, rs, _ := Decide(s, nil); v != session.Incomplete || !strings.Contains(rs[0], "uws crashed") {
		t.Errorf("%s %q", v, rs)
	}
	if v, _, _ := Decide(race(), nil); v == session.Pass {
		t.Error("a session without pairs passed")
	}
}

func TestHeadlineAndExitCode(t *testing.T) {
	s := race(12.71, 12.71, 12.71, 12.71, 12.71, 12.71, 12.71, 12.71, 12.71, 12.71)
	Apply(s, nil)
	if want := "PASS: binding +12.7% throughput vs uws (pinned 20.30.0), 10/10 pairs won, regression threshold passed; p99 +0.0% (saturation, context)"; s.Headline != want {
		t.Errorf("headline %q\nwant     %q", s.Headline, want)
	}
	s = race(-8, -9, -7, -8, -9, -7)
	s.BVersion = ""
	Apply(s, nil)
	if want := "FAIL: binding -8.0% throughput vs uws, 0/6 pairs won, regression threshold failed (rps); p99 +0.0% (saturation, context)"; s.Headline != want {
		t.Errorf("headline %q", s.Headline)
	}
	s.Verdict, s.Incomplete = session.Incomplete, "interrupted"
	if !strings.Contains(Headline(s), "session incomplete (interrupted)") {
		t.Error(Headline(s))
	}
	s.UnequalThreads, s.SideA.Threads, s.SideB.Threads = true, 2, 1
	if h := Headline(s); !strings.HasPrefix(h, "UNEQUAL THREADS: INCOMPLETE: binding (2 threads) -8.0% throughput vs uws (1 thread)") {
		t.Error(h)
	}
	for v, code := range map[string]int{session.Pass: 0, session.Fail: 1, session.Incomplete: 2, session.Inconclusive: 3, "": 2} {
		if ExitCode(v) != code {
			t.Errorf("ExitCode(%q) = %d, want %d", v, ExitCode(v), code)
		}
	}
}

// TestAAFalseFailBudget proves the budget by simulation: builds raced against themselves, with
// heavy-tailed run-to-run noise and an order effect that favours whoever runs first, FAIL at
// most 5% of the time over all the statistical checks of a profile of one, two and four races,
// with fixed designs at the pair counts profiles used. The sequential designs, looked at after
// every even pair count and stopped as a race would (every check decided, or one FAILed), take
// minutes: TestAAFalseFailBudgetSequential, in the long tier.
// The cases with syscalls gate the live system calls per response too: three checks a race.
func TestAAFalseFailBudget(t *testing.T) {
	aaBudget(t, []aaCase{{1, 6, 0, 0, false}, {2, 8, 0, 0, false}, {4, 8, 0, 0, false}, {1, 6, 0, -2, false}, {2, 8, 0, -2, false}, {4, 8, 0, -2, false},
		{1, 6, 0, 0, true}, {2, 8, 0, 0, true}, {1, 6, 0, -2, true}})
}

// aaCase is one profile shape of the A/A simulation.
type aaCase struct {
	races, pairs, maxPairs int // maxPairs > 0: sequential from 6 to maxPairs
	limit                  float64
	syscalls               bool // live system calls gated too (a third check per race)
}

// aaBudget runs each case's 2,000 simulated A/A profiles, in parallel, and fails a case whose
// FAIL rate is over the 5% budget.
func aaBudget(t *testing.T, cases []aaCase) {
	const trials = 2000
	// Limits of -2%/+10% are what profiles use; limits of exactly 0 are the worst case, where the
	// true A/A value sits on the limit and only the intervals' tails stand between it and a FAIL.
	for _, c := range cases {
		// p99's limit is the live system calls' (a closed loop's p99 itself is context).
		th := session.Thresholds{MinMedianDeltaPct: c.limit, MaxP99DeltaPct: -5*c.limit + 0} // + 0: no "-0%"
		if c.syscalls {
			th.LiveSyscallMaxDeltaPct = &th.MaxP99DeltaPct
		}
		// The budget is split among the checks the gate really makes, as a profile splits it.
		gated := gatedChecks(t, th, nil)
		alpha := 0.05 / float64(gated*c.races)
		design, kind := stats.FixedDesign(c.pairs, alpha), fmt.Sprintf("%d pairs", c.pairs)
		if c.maxPairs > 0 {
			design, _ = stats.SequentialDesign(6, c.maxPairs, alpha)
			kind = fmt.Sprintf("sequential 6-%d pairs", c.maxPairs)
		}
		if c.syscalls {
			kind += ", syscalls gated"
		}
		c := c
		t.Run(fmt.Sprintf("%d races %s limit %g", c.races, kind, c.limit), func(t *testing.T) {
			t.Parallel()
			run := aaRun(rand.New(rand.NewPCG(7, uint64(c.races*1000+c.pairs+c.maxPairs+100*gated))))
			fails := 0
			for i := 0; i < trials; i++ {
				failed := false
				for k := 0; k < c.races && !failed; k++ {
					failed = aaRaceFails(design, th, run) == session.Fail
				}
				if failed {
					fails++
				}
			}
			rate := float64(fails) / trials
			limits := fmt.Sprintf("limit %+g%%", th.MinMedianDeltaPct)
			if c.syscalls {
				limits = fmt.Sprintf("limits %+g%%/%+g%%", th.MinMedianDeltaPct, *th.LiveSyscallMaxDeltaPct)
			}
			t.Logf("%d race(s) × %s, %.4g%% per check and direction, %s: A/A FAIL rate %.2f%%",
				c.races, kind, alpha*100, limits, rate*100)
			// The bound is 5%; the binomial standard error at 2,000 trials is 0.49%.
			if rate > 0.05+3*0.0049 {
				t.Errorf("%d races, %s: A/A fails %.2f%% of the time, over the 5%% budget", c.races, kind, rate*100)
			}
		})
	}
}

// aaRun draws runs of a build raced against itself: multiplicative noise of ±6% typical, now
// and then a stall of 20-40%, and the first slot of a pair 3% faster. Its live system calls per
// response move with batching: ±5% typical, now and then a run in another batching regime
// (+30-60%), and the first slot 2% fewer.
func aaRun(r *rand.Rand) func(first bool) session.Run {
	noise := func() float64 {
		x := 1 + 0.06*r.NormFloat64()
		if r.Float64() < 0.05 {
			x *= 0.6 + 0.2*r.Float64()
		}
		return x
	}
	return func(first bool) session.Run {
		boost := 1.0
		if first {
			boost = 1.03
		}
		calls := 0.2 * (1 + 0.05*r.NormFloat64()) / (1 + (boost-1)*2/3)
		if r.Float64() < 0.05 {
			calls *= 1.3 + 0.3*r.Float64()
		}
		return session.Run{Target: "x", RPS: 1e5 * noise() * boost, P99Ms: 2 * noise() / boost, RPSPerCPUSecond: 1, SyscallsPerResponse: calls}
	}
}

// aaRaceFails runs one simulated race of design d, looking where a race looks and stopping
// where it stops, and returns its verdict.
func aaRaceFails(d *session.Design, th session.Thresholds, run func(first bool) session.Run) string {
	var ps []session.Pair
	for j := 0; j < d.MaxPairs; j++ {
		ab := j%2 == 0
		ps = append(ps, session.Pair{Index: j, Order: map[bool]string{true: "AB", false: "BA"}[ab], A: run(ab), B: run(!ab)})
		if d.Kind == session.DesignFixed && j < d.MaxPairs-1 || d.Kind == session.DesignSequential && !slices.Contains(d.Looks, j+1) {
			continue
		}
		s := stats.Summarize(ps, th, d)
		v, _, checks := Decide(&s, nil)
		if v == session.Fail || allDecided(checks) {
			return v
		}
	}
	return session.Inconclusive
}

// allDecided: every statistical check PASSed or FAILed.
func allDecided(checks []session.Check) bool {
	for _, c := range checks {
		if c.Metric != "errors" && c.Verdict == session.Inconclusive {
			return false
		}
	}
	return true
}

// seqRace is a race of the given throughput deltas under the quick profile's sequential design
// (looks at 6, 8, ..., 30 pairs, 2.5% per check and direction).
func seqRace(t *testing.T, limit float64, deltas ...float64) *session.Summary {
	t.Helper()
	d, err := stats.SequentialDesign(6, 30, 0.025)
	if err != nil {
		t.Fatal(err)
	}
	s := raceP(deltas, nil)
	*s = stats.Summarize(s.Pairs, session.Thresholds{MinMedianDeltaPct: limit, MaxP99DeltaPct: 25}, d)
	Apply(s, nil)
	return s
}

// TestSequentialChecks: a sequential check decides at the first look whose interval clears the
// limit, records every look up to it, and stays undecided (with the pairs it would need) while
// the bounds are not reached.
func TestSequentialChecks(t *testing.T) {
	// Eight unanimous wins: the look at 6 has no bound yet (c = 7), the look at 8 decides.
	win := seqRace(t, -5, 150, 140, 160, 150, 145, 155, 150, 150)
	c := check(win.Checks, stats.MetricRPS)
	if win.Verdict != session.Pass || c.DecidedAt != 8 || len(c.Looks) != 2 || c.Looks[0].Interval != nil || c.Looks[1].Decision != session.Pass {
		t.Fatalf("8 wins: %s %+v", win.Verdict, c)
	}
	if !has(win.Reasons, "(look 2 of 13, at 8 of at most 30 pairs; simultaneous coverage 99.22%)") {
		t.Errorf("reason: %q", win.Reasons)
	}
	// Six of them: too few for any bound of this design.
	early := seqRace(t, -5, 150, 140, 160, 150, 145, 155)
	if c := check(early.Checks, stats.MetricRPS); early.Verdict != session.Inconclusive || c.Interval != nil ||
		!has(early.Reasons, "first bounded look is at 8 pairs") {
		t.Errorf("6 wins: %s %+v %q", early.Verdict, c, early.Reasons)
	}
	// A race on its limit stays undecided at every look, and says about how many pairs would
	// decide it, or that none would.
	flat := seqRace(t, 0, -3, 2, -1, 4, -2, 1, -4, 3, 1, -1)
	c = check(flat.Checks, stats.MetricRPS)
	if flat.Verdict != session.Inconclusive || c.DecidedAt != 0 || len(c.Looks) != 3 || c.PairsNeeded != 0 ||
		!has(flat.Reasons, "lean to neither side") {
		t.Errorf("on the limit: %s %+v %q", flat.Verdict, c, flat.Reasons)
	}
	lean := seqRace(t, 0, 3, 2, -1, 4, 2, 1, -4, 3, 1, 5)
	if c := check(lean.Checks, stats.MetricRPS); c.PairsNeeded < 12 || !has(lean.Reasons, "pairs would decide it") {
		t.Errorf("leaning: %+v %q", c, lean.Reasons)
	}
	// Re-gating at another limit walks the same looks: at -200% the first bounded look (8)
	// passes; at +200% it fails.
	for _, c := range []struct {
		limit float64
		want  string
	}{{-200, session.Pass}, {200, session.Fail}} {
		s := *win
		s.Thresholds.MinMedianDeltaPct = c.limit
		Apply(&s, nil)
		if chk := check(s.Checks, stats.MetricRPS); s.Verdict != c.want || chk.DecidedAt != 8 {
			t.Errorf("regated at %v: %s %+v", c.limit, s.Verdict, chk)
		}
	}
}

// A session re-gated by other thresholds can be decided on pairs its race stopped on undecided,
// or the reverse; the stop text says both, so the headline never reads "PASS: ..., undecided
// after 8 pairs" (seen re-gating pgo-balanced-linux sessions on another figure, issue 36).
func TestStopTextAfterRegate(t *testing.T) {
	s := seqRace(t, -5, 150, 140, 160, 150, 145, 155, 150, 150) // 8 wins: decided at 8
	s.Stop = &session.Stop{Reason: session.StopMaxTime, Pairs: 8, ElapsedS: 100}
	s.Design.MaxTimeS = 900
	Apply(s, nil)
	want := "stopped after 8 of at most 30 pairs in 1m40s (the session's 15m0s ran out), undecided at its looks; decided on its pairs as gated"
	if got := StopText(s); s.Verdict != session.Pass || got != want || !strings.Contains(s.Headline, want+";") {
		t.Errorf("undecided as raced, PASS now: %s, stop %q, headline %q", s.Verdict, got, s.Headline)
	}
	s.Stop.Reason = session.StopDecided
	s.Thresholds.MinMedianDeltaPct = 150 // inside the pairs' interval [140, 160]
	Apply(s, nil)
	want = "stopped after 8 of at most 30 pairs in 1m40s, decided at its last look as raced; undecided on its pairs as gated now"
	if got := StopText(s); s.Verdict != session.Inconclusive || got != want {
		t.Errorf("decided as raced, undecided now: %s, stop %q", s.Verdict, got)
	}
	s.Thresholds.MinMedianDeltaPct = -5
	Apply(s, nil)
	if got := StopText(s); got != "decided after 8 of at most 30 pairs in 1m40s" {
		t.Errorf("decided both ways: %q", got)
	}
}

// A race the deterministic counts decided before any pair says so in its headline, not "+0.0%,
// 0/0 pairs won".
func TestHeadlineWithoutPairs(t *testing.T) {
	d, _ := stats.SequentialDesign(6, 16, 0.025)
	s := stats.Summarize(nil, session.Thresholds{MinMedianDeltaPct: -10, CounterMaxDeltaPct: map[string]float64{"instructions": 1}}, d)
	s.A, s.B = "binding-plain", "binding"
	s.Counters = map[string]map[string]float64{"a": {"instructions": 2469.9}, "b": {"instructions": 2169.8}}
	s.CountersMode = "cachegrind"
	s.Stop = &session.Stop{Reason: session.StopDecided}
	Apply(&s, nil)
	if want := "FAIL: binding-plain +13.8% instructions per response vs binding, no pairs, regression threshold failed (instructions)"; s.Verdict != session.Fail || s.Headline != want {
		t.Errorf("%s %q, want %q", s.Verdict, s.Headline, want)
	}
	if got := StopText(&s); got != "decided by the deterministic counts before any pair" {
		t.Errorf("stop text %q", got)
	}
}

// TestCounterExcess: a count whose normal value is zero is limited by how much A's exceeds B's,
// in its own unit, beyond the two counts' resolutions; a percent of B would divide by nothing.
func TestCounterExcess(t *testing.T) {
	excess := func(a, b, res float64, mode string) *session.Summary {
		s := race(12, 13, 12, 14, 12, 13)
		s.CountersMode = mode
		s.Counters = map[string]map[string]float64{"a": {"widgets": a}, "b": {"widgets": b}}
		s.CounterResolution = map[string]map[string]float64{"a": {"widgets": res}, "b": {"widgets": res}}
		s.Thresholds.CounterMaxExcess = map[string]float64{"widgets": 2}
		return s
	}
	for _, c := range []struct {
		a, b, res float64
		mode      string
		want      string
		reason    string
	}{
		{0.1, 0, 0.2, "cachegrind", session.Pass, "A over B +0.100, limit +2.000"},
		{9, 0, 0.2, "cachegrind", session.Fail, "A over B +9.000"},
		{2.1, 0, 0.5, "cachegrind", session.Inconclusive, "within the counts' resolution of the limit"},
		{9, 0, 0.2, "perf", session.Inconclusive, "not gated without deterministic counts"},
	} {
		v, rs, checks := Decide(excess(c.a, c.b, c.res, c.mode), nil)
		if ch := check(checks, "widgets"); ch == nil || ch.Verdict != c.want || !has(rs, c.reason) {
			t.Errorf("%v over %v (±%v, %s): verdict %s, check %+v, reasons %q", c.a, c.b, c.res, c.mode, v, ch, rs)
		}
	}
	s := excess(1, 0, 0.1, "cachegrind")
	delete(s.Counters["b"], "widgets")
	if _, rs, _ := Decide(s, nil); !has(rs, "widgets: not measured on both sides") {
		t.Errorf("missing on B: %q", rs)
	}
}
