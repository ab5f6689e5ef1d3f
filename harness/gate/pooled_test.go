package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// pooledSet gates a pooled set of races whose pair i has throughput delta deltas[r][i] in race
// r, as the db profile would: 5% family, limit -5%, each race's guard at its share of half the
// budget. It returns the races and the pooled check.
func pooledSet(deltas ...[]float64) ([]*session.Summary, *session.Check) {
	var races [][]session.Pair
	for _, ds := range deltas {
		races = append(races, raceP(ds, nil).Pairs)
	}
	return gatePooled(races, -5)
}

// gatePooled gates pooled races of pairs at limit.
func gatePooled(races [][]session.Pair, limit float64) ([]*session.Summary, *session.Check) {
	alpha := 0.05 / 2 / float64(len(races))
	var sums []*session.Summary
	for _, ps := range races {
		s := stats.Summarize(ps, session.Thresholds{MinMedianDeltaPct: limit}, stats.FixedDesign(len(ps), alpha))
		s.Pooled, s.FamilyConfidence, s.FallibleChecks = true, 0.95, len(races)+1
		Apply(&s, nil)
		sums = append(sums, &s)
	}
	return sums, Pool(sums)
}

// setVerdict is a pooled set's verdict: the worst of its races' and its pooled check's.
func setVerdict(sums []*session.Summary, c *session.Check) string {
	v := c.Verdict
	for _, s := range sums {
		v = Worst(v, s.Verdict)
	}
	return v
}

// alternate is 10 pair deltas alternating x, y.
func alternate(x, y float64) []float64 {
	var ds []float64
	for i := 0; i < 10; i++ {
		ds = append(ds, []float64{x, y}[i%2])
	}
	return ds
}

// Two shapes whose pairs swing by ±25 points, in opposite phase: neither race bounds its own
// median within the limit, every pooled pair is the same, and the pooled check decides. Each
// race's guard passes, saying what decides.
func TestPoolDecidesWhatNoRaceCan(t *testing.T) {
	sums, c := pooledSet(alternate(30, -20), alternate(-20, 30))
	if c.Verdict != session.Pass || c.N != 10 || math.Abs(*c.Delta-100*(math.Sqrt(1.3*0.8)-1)) > 1e-9 || setVerdict(sums, c) != session.Pass {
		t.Fatalf("pooled %+v, set %s", c, setVerdict(sums, c))
	}
	for _, s := range sums {
		g := check(s.Checks, stats.MetricRPS)
		if s.Verdict != session.Pass || !strings.HasPrefix(g.Reason, "throughput guard: median delta") ||
			!strings.Contains(g.Reason, "the set's pooled check decides throughput") || !strings.Contains(s.Headline, "guard passed") {
			t.Errorf("guard %+v\nheadline %q", g, s.Headline)
		}
		// Unpooled, the same pairs decide nothing.
		s.Pooled = false
		Apply(s, nil)
		if s.Verdict != session.Inconclusive {
			t.Errorf("unpooled race: %s", s.Verdict)
		}
	}
	// 15 points slower on both shapes: the pooled check FAILs.
	sums, c = pooledSet(alternate(10, -35), alternate(-35, 10))
	if c.Verdict != session.Fail || setVerdict(sums, c) != session.Fail {
		t.Errorf("15%% slower: pooled %+v", c)
	}
	// Pooled pairs that straddle the limit: undecided, with the pairs it would need.
	sums, c = pooledSet([]float64{-12, 2, -9, 3, -7, 1, -11, 4, -8, 2}, alternate(0, 0))
	if c.Verdict != session.Inconclusive || setVerdict(sums, c) != session.Inconclusive || !strings.Contains(c.Reason, "straddles the limit") {
		t.Errorf("straddling: %+v", c)
	}
}

// One shape collapsing is not averaged away: fifteen shapes a little ahead pool to a PASS, and
// the collapsed shape's guard FAILs the set.
func TestPoolGuardCatchesOneShape(t *testing.T) {
	var deltas [][]float64
	for r := 0; r < 15; r++ {
		deltas = append(deltas, alternate(6, 4))
	}
	deltas = append(deltas, alternate(-58, -62))
	sums, c := pooledSet(deltas...)
	if c.Verdict != session.Pass {
		t.Errorf("pooled: %+v", c)
	}
	g := check(sums[15].Checks, stats.MetricRPS)
	if sums[15].Verdict != session.Fail || !strings.HasPrefix(g.Reason, "throughput guard (its own pairs, FAIL only)") || setVerdict(sums, c) != session.Fail {
		t.Errorf("collapsed shape: %s %+v", sums[15].Verdict, g)
	}
}

// A race that measured no pair (the set stopped after another race's guard FAILed, or was cut
// short) passes no guard: it stays INCONCLUSIVE, and the pooled check says why it cannot read
// the set. The set's verdict is the FAIL that stopped it.
func TestPoolNotRunRaceIsNotPassed(t *testing.T) {
	races := [][]session.Pair{raceP(alternate(6, 4), nil).Pairs, raceP(alternate(-58, -62), nil).Pairs, nil}
	sums, c := gatePooled(races, -5)
	g := check(sums[2].Checks, stats.MetricRPS)
	if sums[2].Verdict != session.Inconclusive || g == nil || g.Verdict != session.Inconclusive || !strings.Contains(g.Reason, "nothing guarded") {
		t.Errorf("race with no pairs: %s, %+v", sums[2].Verdict, g)
	}
	if c.Verdict != session.Inconclusive || !strings.Contains(c.Reason, "1 of 3 races measured no pair") {
		t.Errorf("pooled: %+v", c)
	}
	if sums[1].Verdict != session.Fail || setVerdict(sums, c) != session.Fail {
		t.Errorf("the collapsed race %s, the set %s; want FAIL, FAIL", sums[1].Verdict, setVerdict(sums, c))
	}
}

// dbRun draws a database run's throughput as the db A/A race of 2026-12-06 showed it: the pace
// is set when a run starts (a run-to-run spread of sigma in log terms, 0.08 to 0.25 by shape),
// now and then a run at half to 70% of its shape's pace (a client CPU shared with PostgreSQL),
// and the first slot of a pair 3% faster: pair SDs of 12 to 40 points, as measured. speed is
// the build's own factor.
func dbRun(r *rand.Rand, sigma, speed float64) func(first bool) session.Run {
	return func(first bool) session.Run {
		x := speed * math.Exp(sigma*r.NormFloat64())
		if r.Float64() < 0.04 {
			x *= 0.5 + 0.2*r.Float64()
		}
		if first {
			x *= 1.03
		}
		return session.Run{Target: "x", RPS: 5000 * x, RPSPerCPUSecond: 5000 * x, P99Ms: 3 / x}
	}
}

// dbSet simulates one pooled db race set of 16 shapes × 10 pairs, shape k's A built at
// speed(k) times B's, and returns its verdict and the pooled check's.
func dbSet(r *rand.Rand, limit float64, speed func(k int) float64) (set, pooled string) {
	var races [][]session.Pair
	for k := 0; k < 16; k++ {
		sigma := 0.05 + 0.17*float64(k)/15
		a, b := dbRun(r, sigma, speed(k)), dbRun(r, sigma, 1)
		var ps []session.Pair
		for j := 0; j < 10; j++ {
			ab := j%2 == 0
			ps = append(ps, session.Pair{Index: j + 1, Order: map[bool]string{true: "AB", false: "BA"}[ab], A: a(ab), B: b(!ab)})
		}
		races = append(races, ps)
	}
	sums, c := gatePooled(races, limit)
	return setVerdict(sums, c), c.Verdict
}

// TestPooledFalseFailBudget proves the pooled design's budget by simulation, on noise shaped as
// the db races measured it: a build raced against itself FAILs at most 5% of the time, at the
// db profile's limit (-5%) and at 0, the worst case (the true value on the limit). It shows the
// cases it is for, too: a build 15% slower on every shape FAILs, and so does one whose single
// shape collapses to 40% of the other's pace, while the other 15 shapes are level. The A/A
// PASS rate it logs is how often an unchanged build decides at this noise.
func TestPooledFalseFailBudget(t *testing.T) {
	const trials = 1000
	level := func(int) float64 { return 1 }
	for _, c := range []struct {
		name      string
		limit     float64
		speed     func(int) float64
		wantFail  bool
		rateLimit float64 // the FAIL rate must stay under it (A/A) or reach it (a slower build)
	}{
		{"A/A, limit -5%", -5, level, false, 0.05},
		{"A/A, limit 0", 0, level, false, 0.05},
		{"15% slower on every shape", -5, func(int) float64 { return 0.85 }, true, 0.8},
		{"one shape at 40%", -5, func(k int) float64 { return map[bool]float64{true: 0.4, false: 1}[k == 7] }, true, 0.8},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(11, uint64(len(c.name))))
			fails, passes := 0, 0
			for i := 0; i < trials; i++ {
				v, _ := dbSet(r, c.limit, c.speed)
				switch v {
				case session.Fail:
					fails++
				case session.Pass:
					passes++
				}
			}
			rate := float64(fails) / trials
			t.Logf("%s: FAIL %.1f%%, PASS %.1f%% of %d simulated sets", c.name, 100*rate, 100*float64(passes)/trials, trials)
			// The binomial standard error of a 5% rate at 1,000 trials is 0.69%.
			if !c.wantFail && rate > c.rateLimit+3*0.0069 {
				t.Errorf("A/A FAILs %.2f%% of the time, over the %.0f%% budget", 100*rate, 100*c.rateLimit)
			}
			if c.wantFail && rate < c.rateLimit {
				t.Errorf("FAILs only %.1f%% of the time (want at least %.0f%%)", 100*rate, 100*c.rateLimit)
			}
		})
	}
}

// writeSet saves races as a race set in a temporary directory, gated unpooled as they were
// raced (a fixed design at the 5% family's share of two checks).
func writeSet(t *testing.T, deltas ...[]float64) string {
	t.Helper()
	dir := t.TempDir()
	ix := session.Index{Kind: "race-set", Verdict: session.Inconclusive}
	for i, ds := range deltas {
		s := raceP(ds, nil)
		*s = stats.Summarize(s.Pairs, session.Thresholds{MinMedianDeltaPct: -5}, stats.FixedDesign(len(ds), 0.05/float64(len(deltas))))
		s.FamilyConfidence, s.FallibleChecks = 0.95, len(deltas)
		Apply(s, nil)
		name := fmt.Sprintf("shape-%d", i)
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := session.WriteJSON(filepath.Join(dir, name, session.SummaryFile), s); err != nil {
			t.Fatal(err)
		}
		ix.Sessions = append(ix.Sessions, session.IndexEntry{Name: name, Dir: name, Verdict: s.Verdict})
	}
	if err := session.WriteJSON(filepath.Join(dir, session.IndexFile), ix); err != nil {
		t.Fatal(err)
	}
	return dir
}

// gate --pool re-gates a set saved unpooled as a pooled profile would: the two shapes that
// decided nothing on their own PASS pooled, each race saying it was re-gated so; a set 15%
// slower FAILs; a single race cannot be pooled.
func TestRegatePooled(t *testing.T) {
	dir := writeSet(t, alternate(30, -20), alternate(-20, 30))
	if out, v, err := Regate(dir, nil, "", false); err != nil || v != session.Inconclusive || PoolOf(out) != nil {
		t.Fatalf("unpooled: %v %s", err, v)
	}
	out, v, err := Regate(dir, nil, "", true)
	if err != nil || v != session.Pass {
		t.Fatalf("pooled: %v %s", err, v)
	}
	c := PoolOf(out)
	if c == nil || c.Verdict != session.Pass || !strings.HasPrefix(c.Reason, "pooled throughput over 2 races: median delta +1.98% over 10 pooled pairs") {
		t.Errorf("pooled check %+v", c)
	}
	s := out[0].Summary
	if !s.Pooled || s.FallibleChecks != 3 || math.Abs(s.Design.Alpha-0.0125) > 1e-12 || !has(s.Warnings, "re-gated pooled, as a profile") {
		t.Errorf("race 0: pooled %v, checks %d, design %+v, warnings %q", s.Pooled, s.FallibleChecks, s.Design, s.Warnings)
	}
	if _, v, err := Regate(writeSet(t, alternate(10, -35), alternate(-35, 10)), nil, "", true); err != nil || v != session.Fail {
		t.Errorf("15%% slower, pooled: %v %s", err, v)
	}
	single := t.TempDir()
	if err := session.WriteJSON(filepath.Join(single, session.SummaryFile), race(1, 2, 3, 4, 5, 6)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Regate(single, nil, "", true); err == nil || !strings.Contains(err.Error(), "pool pools the races of a race set") {
		t.Errorf("a single race pooled: %v", err)
	}
}
