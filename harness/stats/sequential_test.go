package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func TestSequentialDesignBounds(t *testing.T) {
	// quick: two checks share 5%, so 2.5% each way; looks at 6, 8, ..., 30. Unanimous pairs
	// first decide at 8 (2^-8 = 0.39% fits what Pocock spending allows by then; 2^-6 does not).
	d, err := SequentialDesign(6, 30, 0.025)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{7, 8, 10, 11, 12, 13, 15, 16, 17, 19, 20, 21, 22}
	if fmt.Sprint(d.Bounds) != fmt.Sprint(want) || d.Looks[0] != 6 || d.Looks[len(d.Looks)-1] != 30 {
		t.Errorf("looks %v bounds %v, want bounds %v", d.Looks, d.Bounds, want)
	}
	for i := range d.Spent {
		if d.Spent[i] > 0.025*pocock(float64(d.Looks[i])/30)+1e-12 || (i > 0 && d.Spent[i] < d.Spent[i-1]) {
			t.Errorf("look %d: spent %v over the allowance or falling", d.Looks[i], d.Spent[i])
		}
	}
	// The exact walk agrees with a simulation of fair coins.
	r := rand.New(rand.NewPCG(3, 4))
	crossed := 0
	const trials = 200000
	for i := 0; i < trials; i++ {
		k, n := 0, 0
		for j, look := range d.Looks {
			for ; n < look; n++ {
				k += int(r.Uint64() & 1)
			}
			if k >= d.Bounds[j] {
				crossed++
				break
			}
		}
	}
	if got, exact := float64(crossed)/trials, d.Spent[len(d.Spent)-1]; math.Abs(got-exact) > 4*math.Sqrt(exact/trials) {
		t.Errorf("simulated crossing %.5f, exact %.5f", got, exact)
	}
}

func TestSequentialDesignBadInput(t *testing.T) {
	if _, err := SequentialDesign(10, 6, 0.025); err == nil || !strings.Contains(err.Error(), "below min_pairs") {
		t.Errorf("max below min: %v", err)
	}
	// 1.25% each way needs 2^-n <= 1.25%: 7 pairs, 8 when even.
	if _, err := SequentialDesign(2, 6, 0.0125); err == nil || !strings.Contains(err.Error(), "at least 8") {
		t.Errorf("too short a plan: %v", err)
	}
	if _, err := SequentialDesign(2, 8, 0.0125); err != nil {
		t.Errorf("8 pairs at 1.25%%: %v", err)
	}
	if MinDecisivePairs(0.025) != 6 || MinDecisivePairs(0.0125) != 8 || MinDecisivePairs(0.5) != 2 {
		t.Error("MinDecisivePairs")
	}
}

func TestFixedDesignIsMedianInterval(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{6, 7, 10, 30} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = r.NormFloat64()
		}
		iv := MedianInterval(xs, 0.95)
		l := LooksOf(FixedDesign(n, 0.025), xs)
		if len(l) != 1 || l[0].Interval == nil || l[0].Interval[0] != iv.Lo || l[0].Interval[1] != iv.Hi {
			t.Errorf("n=%d: look %+v, interval %+v", n, l, iv)
		}
		if c := Coverage(FixedDesign(n, 0.025), n); math.Abs(c-iv.Confidence) > 1e-12 {
			t.Errorf("n=%d: coverage %v, interval's %v", n, c, iv.Confidence)
		}
	}
	if l := LooksOf(FixedDesign(5, 0.025), []float64{1, 2, 3, 4, 5}); len(l) != 1 || l[0].Interval != nil {
		t.Errorf("5 pairs at 95%%: %+v", l)
	}
}

// noiseModel draws one pair's delta, in percent, for an A/A race whose true median delta is 0:
// i is the pair's index (AB when even), so drift and order effects can depend on it.
type noiseModel struct {
	name string
	draw func(r *rand.Rand, i int) float64
}

// aaNoise are the shapes pair deltas take: normal, skewed (a stalled run drags one side),
// heavy-tailed, bimodal from a noisy neighbour, and a machine drifting while it runs (each
// pair's second run on a machine a little slower or faster than the first, by an amount
// that wanders over the session, plus a 2% order effect).
var aaNoise = []noiseModel{
	{"normal", func(r *rand.Rand, _ int) float64 { return 3 * r.NormFloat64() }},
	{"lognormal", func(r *rand.Rand, _ int) float64 { return 3 * (math.Exp(r.NormFloat64()) - 1) }}, // median 0
	{"Cauchy", func(r *rand.Rand, _ int) float64 { return 2 * math.Tan(math.Pi*(r.Float64()-0.5)) }},
	{"mixture 80/20", func(r *rand.Rand, _ int) float64 {
		if r.Float64() < 0.2 { // a neighbour in one run: ±12%, either side alike
			return 12*float64(1-2*int(r.Uint64()&1)) + 2*r.NormFloat64()
		}
		return 2 * r.NormFloat64()
	}},
	{"drifting machine", nil}, // set in init: needs state across pairs
}

func init() {
	var drift float64
	aaNoise[4].draw = func(r *rand.Rand, i int) float64 {
		if i == 0 {
			drift = 0
		}
		drift += 0.8 * r.NormFloat64() // the machine's speed change within a pair, wandering
		second := drift + 2            // the second run is slower by the drift and an order effect
		if i%2 == 0 {                  // AB: B ran second
			return second + 2*r.NormFloat64()
		}
		return -second + 2*r.NormFloat64()
	}
}

// stopsAt runs one check of one sequential race: deltas drawn by m shifted by effect, looked
// at by d against limit; it returns the decision and the pairs it took ("" at the end).
func stopsAt(r *rand.Rand, d *session.Design, m noiseModel, effect, limit float64) (string, int, []float64) {
	xs := make([]float64, 0, d.MaxPairs)
	for i, n := range d.Looks {
		for len(xs) < n {
			xs = append(xs, m.draw(r, len(xs))+effect)
		}
		above, below := BeyondCount(xs, limit)
		switch c := d.Bounds[i]; {
		case below >= c:
			return session.Fail, n, xs
		case above >= c:
			return session.Pass, n, xs
		}
	}
	return "", d.MaxPairs, xs
}

// TestSequentialFalseFail is the proof of the sequential gate's budget under optional stopping:
// A/A races whose true median sits exactly on the limit (the worst case), looked at after every
// even pair count and stopped at the first decision, FAIL at most alpha of the time for every
// noise shape. The naive rule — the fixed-n interval re-read after every pair — is simulated
// beside it, and must exceed alpha: the check would not catch it otherwise.
// `go test -run TestSequentialFalseFail -v ./harness/stats` prints the table (docs/statistics.md).
func TestSequentialFalseFail(t *testing.T) {
	const trials = 20000
	var table strings.Builder
	table.WriteString("| noise | design | alpha per check | false FAIL, sequential | false FAIL, fixed interval re-read after every pair |\n|---|---|---|---|---|\n")
	for _, p := range []struct {
		name     string
		min, max int
		alpha    float64
	}{{"quick", 6, 30, 0.05}, {"release-linux", 6, 40, 0.025}} {
		d, err := SequentialDesign(p.min, p.max, p.alpha)
		if err != nil {
			t.Fatal(err)
		}
		for mi, m := range aaNoise {
			r := rand.New(rand.NewPCG(uint64(mi+1), 99))
			fails, naive := 0, 0
			for i := 0; i < trials; i++ {
				if v, _, _ := stopsAt(r, d, m, 0, 0); v == session.Fail {
					fails++
				}
				if naiveFails(r, m, p.min, p.max, p.alpha) {
					naive++
				}
			}
			rate, naiveRate := float64(fails)/trials, float64(naive)/trials
			fmt.Fprintf(&table, "| %s | %s (%d-%d pairs) | %.2f%% | %.2f%% | %.2f%% |\n", m.name, p.name, p.min, p.max, p.alpha*100, rate*100, naiveRate*100)
			if se := math.Sqrt(p.alpha * (1 - p.alpha) / trials); rate > p.alpha+4*se {
				t.Errorf("%s, %s: false FAIL %.3f%% over alpha %.3f%%", m.name, p.name, rate*100, p.alpha*100)
			}
			// Balanced orders turn a drifting machine's bias into deltas of alternating sign,
			// which only makes both rules more cautious; the i.i.d. shapes show the difference.
			if m.name != "drifting machine" && naiveRate <= p.alpha {
				t.Errorf("%s, %s: the naive re-read stayed within alpha (%.3f%%): the simulation cannot tell the rules apart", m.name, p.name, naiveRate*100)
			}
		}
	}
	t.Logf("A/A races on the limit, %d per row, stopped at the first decision:\n%s", trials, table.String())
}

// naiveFails looks at the fixed-n interval after every even pair count and stops at the first
// one wholly below the limit 0: the rule a sequential gate must not use.
func naiveFails(r *rand.Rand, m noiseModel, minPairs, maxPairs int, alpha float64) bool {
	xs := make([]float64, 0, maxPairs)
	for n := minPairs; n <= maxPairs; n += 2 {
		for len(xs) < n {
			xs = append(xs, m.draw(r, len(xs)))
		}
		iv := MedianInterval(xs, 1-2*alpha)
		if iv.Bounded() && iv.Hi < 0 {
			return true
		}
		if iv.Bounded() && iv.Lo >= 0 {
			return false
		}
	}
	return false
}

// TestSequentialCoverage: the interval a sequential race reports at the look it stopped at
// holds the true median at least 1 - 2·alpha of the time, whenever it stopped, for every noise
// shape, with a real effect in play (so races stop at many different looks).
func TestSequentialCoverage(t *testing.T) {
	const trials = 20000
	d, err := SequentialDesign(6, 30, 0.025)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	table.WriteString("| noise | true delta | limit | coverage at the stopping look | claimed at least |\n|---|---|---|---|---|\n")
	for mi, m := range aaNoise {
		r := rand.New(rand.NewPCG(uint64(mi+11), 7))
		in := 0
		for i := 0; i < trials; i++ {
			_, n, xs := stopsAt(r, d, m, 2, 0) // +2% against a 0 limit: many stop early, some late
			looks := LooksOf(d, xs[:n])
			iv := looks[len(looks)-1].Interval
			if iv == nil || (iv[0] <= 2 && 2 <= iv[1]) {
				in++
			}
		}
		cov := float64(in) / trials
		fmt.Fprintf(&table, "| %s | +2%% | 0%% | %.2f%% | %.2f%% |\n", m.name, cov*100, (1-2*0.025)*100)
		if cov < 1-2*0.025-4*math.Sqrt(0.05*0.95/trials) {
			t.Errorf("%s: coverage %.3f below %.3f", m.name, cov, 1-2*0.025)
		}
	}
	t.Logf("coverage of the reported interval under optional stopping, %d races per row:\n%s", trials, table.String())
}

// TestSpendingFunctions is the evidence for Pocock-type spending: mean pairs to a decision for
// a share p of deltas beyond the limit, against linear spending (alpha·t) and an O'Brien-
// Fleming-like one (alpha·t³) that saves alpha for the last look. Pocock-type spending stops an
// obvious race soonest and loses little on a close one.
func TestSpendingFunctions(t *testing.T) {
	const trials = 20000
	spendings := []struct {
		name string
		f    func(float64) float64
	}{{"Pocock-type", pocock}, {"linear", func(t float64) float64 { return t }}, {"t³", func(t float64) float64 { return t * t * t }}}
	var table strings.Builder
	table.WriteString("| share beyond the limit | Pocock-type | linear | t³ | confidence sequence (mixture) |\n|---|---|---|---|---|\n")
	for _, p := range []float64{1, 0.9, 0.8, 0.7} {
		fmt.Fprintf(&table, "| %.1f |", p)
		var means []float64
		for _, s := range spendings {
			d, err := plan(6, 30, 0.025, s.f)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			m := noiseModel{draw: func(r *rand.Rand, _ int) float64 {
				if r.Float64() < p {
					return -1
				}
				return 1
			}}
			sum, decided := 0, 0
			for i := 0; i < trials; i++ {
				v, n, _ := stopsAt(r, d, m, 0, 0)
				sum += n
				if v != "" {
					decided++
				}
			}
			means = append(means, float64(sum)/trials)
			fmt.Fprintf(&table, " %.1f pairs (%.0f%% decided) |", float64(sum)/trials, 100*float64(decided)/trials)
		}
		mix, decided := mixtureStops(p, 6, 30, 0.025, trials/4)
		fmt.Fprintf(&table, " %.1f pairs (%.0f%% decided) |\n", mix, 100*decided)
		if p < 1 && mix <= means[0] {
			t.Errorf("p = %.1f: the confidence sequence decides in %.1f pairs, the plan in %.1f", p, mix, means[0])
		}
		if p == 1 && (means[0] > means[1] || means[0] > means[2]) {
			t.Errorf("unanimous races: Pocock-type spending takes %.1f pairs, others %v", means[0], means[1:])
		}
	}
	t.Logf("mean pairs to a decision, alpha 2.5%%, looks at 6, 8, ..., 30, %d races per cell:\n%s", trials, table.String())
}

// mixtureStops is the anytime-valid alternative: the sign test's beta-binomial mixture
// martingale (a uniform prior on the share p in [1/2, 1]) against Ville's bound 1/alpha, looked
// at after every even pair count from minPairs to maxPairs. It returns the mean pairs to a
// decision and the share decided.
func mixtureStops(p float64, minPairs, maxPairs int, alpha float64, trials int) (mean, decided float64) {
	crosses := map[[2]int]bool{} // (n, k): 2^n · E_p[p^k (1-p)^(n-k)] >= 1/alpha, p uniform on [1/2, 1]
	mixture := func(n, k int) bool {
		key := [2]int{n, k}
		if v, ok := crosses[key]; ok {
			return v
		}
		const steps = 2000
		sum := 0.0
		for i := 0; i < steps; i++ {
			q := 0.5 + 0.5*(float64(i)+0.5)/steps
			sum += math.Exp(float64(k)*math.Log(2*q) + float64(n-k)*math.Log(2*(1-q)))
		}
		crosses[key] = sum/steps >= 1/alpha
		return crosses[key]
	}
	r := rand.New(rand.NewPCG(1, 2))
	total, hits := 0, 0
	for i := 0; i < trials; i++ {
		k, n := 0, 0
		for n < maxPairs {
			n++
			if r.Float64() < p {
				k++
			}
			if n%2 == 0 && n >= minPairs && mixture(n, k) {
				hits++
				break
			}
		}
		total += n
	}
	return float64(total) / float64(trials), float64(hits) / float64(trials)
}

func TestPairsNeeded(t *testing.T) {
	d, _ := SequentialDesign(6, 30, 0.025)
	// Balanced on the limit: nothing would decide it.
	if n := PairsNeeded(d, Plain([]float64{-1, 1, -1, 1, -1, 1}), 0); n != 0 {
		t.Errorf("balanced: %d", n)
	}
	// 24 of 30 beyond: p = 24.5/31 ≈ 0.79, z of the last bound (22 of 30) ≈ 2.56: about 12,
	// but never fewer than the pairs already measured plus one.
	xs := make([]float64, 30)
	for i := range xs {
		xs[i] = 1
		if i%5 == 0 {
			xs[i] = -1
		}
	}
	if n := PairsNeeded(d, Plain(xs), 0); n != 32 {
		t.Errorf("24/30: %d", n)
	}
	// 18 of 30 (p ≈ 0.60): z/(2p-1) ≈ 2.56/0.19 → about 180 pairs.
	for i := range xs {
		xs[i] = 1
		if i < 12 {
			xs[i] = -1
		}
	}
	if n := PairsNeeded(d, Plain(xs), 0); n < 150 || n > 220 {
		t.Errorf("18/30: %d", n)
	}
	if n := PairsToDecide(d, Plain([]float64{1, 1, 1, 1, 1, 1}), 0); n != 8 {
		t.Errorf("6 unanimous: next decisive look %d, want 8", n)
	}
}

func TestAgreedCount(t *testing.T) {
	for _, c := range []struct {
		xs, res []float64
		want    float64
		done    bool
	}{
		{[]float64{2173}, []float64{11.8}, 0, false},
		{[]float64{2173, 2175}, []float64{11.8, 11.8}, 2174, true},             // within binding's resolution at N = 20,000
		{[]float64{2173, 2209}, []float64{11.8, 11.8}, 0, false},               // 36 apart: take a third
		{[]float64{2173, 2209, 2174}, []float64{11.8, 11.8, 11.8}, 2174, true}, // the median drops the outlier
		// A race's A/A count (release-linux, N = 5,000): the second repetition caught a heap
		// growth, and its own coarse resolution must not make it agree.
		{[]float64{1840.0, 1864.5}, []float64{10.6, 38.2}, 0, false},
		{[]float64{1840.0, 1864.5, 1841.1}, []float64{10.6, 38.2, 9.9}, 1841.1, true},
	} {
		v, done := AgreedCount(c.xs, c.res)
		if done != c.done || (done && v != c.want) {
			t.Errorf("%v within %v: %v %v", c.xs, c.res, v, done)
		}
	}
}
