package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func TestMedianInterval(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 6, 3}
	iv := MedianInterval(xs, 0.95)
	// n = 6 at 95%: the interval is [min, max], coverage 1 - 2/64.
	if iv.Median != 3.5 || iv.Lo != 1 || iv.Hi != 6 || iv.N != 6 || !near(iv.Confidence, 1-2.0/64, 1e-12) {
		t.Errorf("got %+v", iv)
	}
	// n = 30 at 98.75%: each tail may miss 0.625%; P(B <= 7) = 0.26%, P(B <= 8) = 0.81%, so the
	// 8th and 23rd order statistics, coverage 1 - 2·0.26%.
	xs30 := make([]float64, 30)
	for i := range xs30 {
		xs30[i] = float64(30 - i)
	}
	if iv := MedianInterval(xs30, 0.9875); iv.Lo != 8 || iv.Hi != 23 || !near(iv.Confidence, 0.99478, 0.00001) {
		t.Errorf("n=30: %+v", iv)
	}
	if xs[0] != 5 {
		t.Error("MedianInterval reordered its input")
	}
	// Five values cannot give a bounded 95% interval: ±Inf, never a made-up one.
	if iv := MedianInterval(xs[:5], 0.95); iv.Bounded() || !math.IsInf(iv.Lo, -1) || !math.IsInf(iv.Hi, 1) {
		t.Errorf("5 values at 95%%: %+v", iv)
	}
	if iv := MedianInterval(nil, 0.95); !math.IsNaN(iv.Median) || iv.Bounded() {
		t.Errorf("empty: %+v", iv)
	}
}

func TestMinSamplesAndCheckLevel(t *testing.T) {
	for _, c := range []struct {
		level float64
		n     int
	}{{0.90, 5}, {0.95, 6}, {0.975, 7}, {0.9875, 8}} {
		if got := MinSamples(c.level); got != c.n {
			t.Errorf("MinSamples(%v) = %d, want %d", c.level, got, c.n)
		}
	}
	for _, c := range []struct {
		m    int
		want float64
	}{{1, 0.90}, {2, 0.95}, {4, 0.975}, {8, 0.9875}} {
		if got := CheckLevel(0.95, c.m); !near(got, c.want, 1e-12) {
			t.Errorf("CheckLevel(0.95, %d) = %v, want %v", c.m, got, c.want)
		}
	}
}

// distribution draws pair deltas whose true median is known.
type distribution struct {
	name   string
	median float64
	draw   func(r *rand.Rand) float64
}

var distributions = []distribution{
	{"normal", 0, func(r *rand.Rand) float64 { return r.NormFloat64() }},
	// Skewed: lognormal(0, 1), median e^0 = 1, a long right tail (a run that stalls).
	{"lognormal (skewed)", 1, func(r *rand.Rand) float64 { return math.Exp(r.NormFloat64()) }},
	// Heavy-tailed: Cauchy, no mean and no variance; the median is still 0.
	{"Cauchy (heavy tails)", 0, func(r *rand.Rand) float64 { return math.Tan(math.Pi * (r.Float64() - 0.5)) }},
	// A mixture: 80% quiet pairs, 20% from a noisy neighbour shifted by +5 (bimodal, skewed).
	{"mixture 80/20", 0, nil}, // median filled in below
}

func init() {
	// Median of 0.8·N(0,1) + 0.2·N(5,1): solve 0.8Φ(m) + 0.2Φ(m-5) = 0.5 by bisection.
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	lo, hi := -1.0, 2.0
	for i := 0; i < 200; i++ {
		m := (lo + hi) / 2
		if 0.8*phi(m)+0.2*phi(m-5) < 0.5 {
			lo = m
		} else {
			hi = m
		}
	}
	distributions[3].median = (lo + hi) / 2
	distributions[3].draw = func(r *rand.Rand) float64 {
		if r.Float64() < 0.2 {
			return 5 + r.NormFloat64()
		}
		return r.NormFloat64()
	}
}

// coverage runs trials intervals of n draws and counts how often the true median is inside,
// below the interval (the interval lies wholly above it) and above it.
func coverage(d distribution, n int, level float64, trials int, seed uint64) (in, missLow, missHigh float64, claimed float64) {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	xs := make([]float64, n)
	var cin, clo, chi int
	for i := 0; i < trials; i++ {
		for j := range xs {
			xs[j] = d.draw(r)
		}
		iv := MedianInterval(xs, level)
		claimed = iv.Confidence
		switch {
		case d.median < iv.Lo:
			clo++
		case d.median > iv.Hi:
			chi++
		default:
			cin++
		}
	}
	t := float64(trials)
	return float64(cin) / t, float64(clo) / t, float64(chi) / t, claimed
}

// TestIntervalCoverage is the proof behind every interval the gate uses: for normal, skewed,
// heavy-tailed and bimodal pair deltas, at each level the gate uses and pair counts from the
// minimum up, the measured coverage is at least the nominal level and matches the confidence
// the summary records, and each tail misses at most (1-level)/2 — the bound the gate's false
// FAIL budget rests on. `go test -run TestIntervalCoverage -v ./harness/stats` prints the table
// (docs/statistics.md holds a copy).
func TestIntervalCoverage(t *testing.T) {
	const trials = 10000
	// Binomial standard error of a coverage near 0.95 over 10,000 trials is 0.0022; a measured
	// value more than 4 of them below its bound would be a real shortfall, not chance.
	const slack = 4 * 0.0022
	var table strings.Builder
	table.WriteString("| distribution | level | pairs | recorded confidence | measured coverage | missed low | missed high |\n")
	table.WriteString("|---|---|---|---|---|---|---|\n")
	seed := uint64(1)
	for _, level := range []float64{0.95, 0.975, 0.9875} {
		min := MinSamples(level)
		for _, n := range []int{min, min + 1, min + 2, 10, 16, 20, 30, 40} {
			if n < min || (n == 10 && min+2 >= 10) {
				continue
			}
			for _, d := range distributions {
				seed++
				in, lo, hi, claimed := coverage(d, n, level, trials, seed)
				fmt.Fprintf(&table, "| %s | %.2f%% | %d | %.2f%% | %.2f%% | %.2f%% | %.2f%% |\n",
					d.name, level*100, n, claimed*100, in*100, lo*100, hi*100)
				if in < level-slack {
					t.Errorf("%s, n=%d, level %.4f: coverage %.4f below nominal", d.name, n, level, in)
				}
				if math.Abs(in-claimed) > slack {
					t.Errorf("%s, n=%d: coverage %.4f but the summary would record %.4f", d.name, n, in, claimed)
				}
				// Each tail alone stays within half of what the level allows: the false-FAIL
				// budget of CheckLevel counts on that, not only on the two-sided coverage.
				if tail := (1 - level) / 2; lo > tail+slack/2 || hi > tail+slack/2 {
					t.Errorf("%s, n=%d, level %.4f: tails %.4f/%.4f exceed %.4f", d.name, n, level, lo, hi, tail)
				}
			}
		}
	}
	t.Logf("coverage of the median's order-statistic interval, %d trials per row:\n%s", trials, table.String())
}

func TestResolutionOf(t *testing.T) {
	s := &session.Summary{Raced: session.Raced{Thresholds: session.Thresholds{MinMedianDeltaPct: -2}},
		Figures: session.Figures{CILevel: 0.95, Paired: map[string]session.Paired{MetricRPS: {MedianPct: 1, CIPct: &[2]float64{-2, 4}, N: 8}}}}
	r := ResolutionOf(s, MetricRPS)
	// Half-widths 3 below and 3 above: a true -5% has its interval end at -2%.
	if r == nil || r.HalfWidthPct != 3 || r.DetectablePct != 5 || r.PairsForThreshold != 18 {
		t.Errorf("%+v", r)
	}
	s.Thresholds.MinMedianDeltaPct = 0
	if r := ResolutionOf(s, MetricRPS); r.PairsForThreshold != 0 || r.DetectablePct != 3 {
		t.Errorf("zero threshold: %+v", r)
	}
	s.Paired[MetricRPS] = session.Paired{MedianPct: 1, N: 2}
	if ResolutionOf(s, MetricRPS) != nil {
		t.Error("a resolution without an interval")
	}
}
