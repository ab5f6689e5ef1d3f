package gate

import (
	"math"
	"math/rand/v2"
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
	s := stats.Summarize(ps, session.Thresholds{MinMedianDeltaPct: -2, MaxP99DeltaPct: 10}, 0.95)
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
			!has(s.Reasons, "need at least 6 complete pairs; run --pairs 6") || !strings.HasSuffix(s.Headline, "(too few pairs: need 6)") {
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
	out := stats.Summarize(s.Pairs, s.Thresholds, level)
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
		p.CIPct = &[2]float64{c.lo, c.hi}
		s.Paired[stats.MetricRPS] = p
		if v, rs, _ := Decide(s, nil); v != c.want {
			t.Errorf("CI [%v %v]: %s %q, want %s", c.lo, c.hi, v, rs, c.want)
		}
	}
}

// p99 is judged on the per-pair p99 deltas and their interval, never on two medians.
func TestP99Paired(t *testing.T) {
	win := []float64{12, 13, 12, 14, 12, 13}
	for _, c := range []struct {
		name string
		p99  []float64
		want string
	}{
		{"lower tails", []float64{-5, -4, -6, -5, -3, -5}, session.Pass},
		{"wholly over the limit", []float64{25, 22, 30, 24, 26, 21}, session.Fail},
		// One noisy pair makes the median of two run medians exceed +10%: the interval knows better.
		{"noise straddles", []float64{-8, 14, -3, 12, 2, -6}, session.Inconclusive},
	} {
		s := raceP(win, c.p99)
		v, rs, checks := Decide(s, nil)
		pc := check(checks, stats.MetricP99)
		if pc == nil || pc.Verdict != c.want || v != c.want || !has(rs, "p99: median delta") {
			t.Errorf("%s: %s %q %+v", c.name, v, rs, pc)
		}
	}
}

func TestClientBound(t *testing.T) {
	// A client-bound run of A: A could be faster, which only confirms a PASS.
	s := race(12, 13, 11, 14, 12, 13)
	s.Pairs[1].A.ClientBound = true
	if v, rs, _ := Decide(s, nil); v != session.Pass {
		t.Errorf("A client-bound, A wins: %s %q", v, rs)
	}
	// ... but it cannot support a FAIL.
	slow := race(-12, -13, -11, -14, -12, -13)
	slow.Pairs[1].A.ClientBound = true
	if v, rs, _ := Decide(slow, nil); v != session.Inconclusive || !has(rs, "1 of binding's 6 runs were client-bound") {
		t.Errorf("A client-bound, A loses: %s %q", v, rs)
	}
	// A client-bound run of B: B could be faster, so a PASS is not shown.
	s.Pairs[1].A.ClientBound = false
	s.Pairs[2].B.ClientBound = true
	v, rs, _ := Decide(s, nil)
	if v != session.Inconclusive || !has(rs, "1 of uws's 6 runs were client-bound") {
		t.Errorf("client-bound: %s %q", v, rs)
	}
	s.DecideOn = stats.MetricRPSPerCPUSec
	Apply(s, nil)
	if s.Verdict != session.Pass || check(s.Checks, stats.MetricRPSPerCPUSec) == nil ||
		!strings.Contains(s.Headline, "per server CPU-second") || !has(s.Reasons, "throughput per server CPU-second") {
		t.Errorf("decided per CPU-second: %s %q %q", s.Verdict, s.Reasons, s.Headline)
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
	s.CountersMode = Deterministic
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
	s := withCounts(2214, 2214)
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
	if _, err := NewBaseline([]*session.Summary{noCounts}, "x"); err == nil || !strings.Contains(err.Error(), "--counters cachegrind") {
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
	if want := "binding +12.7% vs uws (pinned 20.30.0), 10/10 pairs won, regression threshold passed"; s.Headline != want {
		t.Errorf("headline %q\nwant     %q", s.Headline, want)
	}
	s = race(-8, -9, -7, -8, -9, -7)
	s.BVersion = ""
	Apply(s, nil)
	if want := "binding -8.0% vs uws, 0/6 pairs won, regression threshold failed (rps)"; s.Headline != want {
		t.Errorf("headline %q", s.Headline)
	}
	s.Verdict, s.Incomplete = session.Incomplete, "interrupted"
	if !strings.HasSuffix(Headline(s), "session incomplete (interrupted)") {
		t.Error(Headline(s))
	}
	s.UnequalThreads, s.SideA.Threads, s.SideB.Threads = true, 2, 1
	if h := Headline(s); !strings.HasPrefix(h, "UNEQUAL THREADS: binding (2 threads) -8.0% vs uws (1 thread)") {
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
// at the pair counts the profiles use.
func TestAAFalseFailBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	noise := func() float64 { // multiplicative: ±6% typical, occasionally a stall of 20-40%
		x := 1 + 0.06*r.NormFloat64()
		if r.Float64() < 0.05 {
			x *= 0.6 + 0.2*r.Float64()
		}
		return x
	}
	run := func(first bool) session.Run {
		boost := 1.0
		if first {
			boost = 1.03 // the first slot is 3% faster
		}
		return session.Run{Target: "x", RPS: 1e5 * noise() * boost, P99Ms: 2 * noise() / boost, RPSPerCPUSecond: 1}
	}
	const trials = 4000
	// Limits of -2%/+10% are what profiles use; limits of exactly 0 are the worst case, where the
	// true A/A value sits on the limit and only the intervals' tails stand between it and a FAIL.
	for _, c := range []struct {
		races, pairs int
		limit        float64
	}{{1, 6, 0}, {2, 8, 0}, {4, 8, 0}, {1, 6, -2}, {2, 8, -2}, {4, 8, -2}} {
		th := session.Thresholds{MinMedianDeltaPct: c.limit, MaxP99DeltaPct: -5*c.limit + 0} // + 0: no "-0%"
		level := stats.CheckLevel(0.95, 2*c.races)
		fails := 0
		for i := 0; i < trials; i++ {
			failed := false
			for k := 0; k < c.races; k++ {
				var ps []session.Pair
				for j := 0; j < c.pairs; j++ {
					ab := j%2 == 0
					ps = append(ps, session.Pair{Index: j, Order: map[bool]string{true: "AB", false: "BA"}[ab], A: run(ab), B: run(!ab)})
				}
				s := stats.Summarize(ps, th, level)
				if v, _, _ := Decide(&s, nil); v == session.Fail {
					failed = true
				}
			}
			if failed {
				fails++
			}
		}
		rate := float64(fails) / trials
		t.Logf("%d race(s) × %d pairs, %.4g%% per check, limits %+g%%/%+g%%: A/A FAIL rate %.2f%%",
			c.races, c.pairs, level*100, th.MinMedianDeltaPct, th.MaxP99DeltaPct, rate*100)
		// The bound is 5%; the binomial standard error at 4,000 trials is 0.34%.
		if rate > 0.05+3*0.0034 {
			t.Errorf("%d races: A/A fails %.2f%% of the time, over the 5%% budget", c.races, rate*100)
		}
	}
}
