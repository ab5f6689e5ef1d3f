package stats

import (
	"math"
	"sort"

	"github.com/bindrace/bindrace/harness/session"

	"github.com/aclements/go-moremath/stats"
)

// Interval is a distribution-free confidence interval of a median: the order statistics
// [x(k), x(n+1-k)]. For any continuous distribution the number of observations below the true
// median is Binomial(n, 1/2), so the interval misses it on the low side with probability
// P(B <= k-1) and on the high side with the same probability, whatever the shape of the data.
type Interval struct {
	Median     float64
	Lo, Hi     float64 // ±Inf when n is too small for the level asked
	Confidence float64 // the interval's real coverage, 1 - 2·P(B <= k-1); >= the level asked
	N          int
}

// Bounded reports whether both ends are finite, i.e. there were enough values for the level.
func (iv Interval) Bounded() bool {
	return !math.IsInf(iv.Lo, 0) && !math.IsInf(iv.Hi, 0) && !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi)
}

// MedianInterval is the median of xs and its symmetric order-statistic interval at level (e.g.
// 0.95). The input is not reordered. With no values every field but N is NaN.
//
// Why not golang.org/x/perf/benchmath's AssumeNothing.Summary, which computes the same family of
// intervals: it may pick an asymmetric pair of orders (for n <= 30, growing from the mode) and a
// normal approximation above 30. Its two-sided coverage holds, but one tail can then exceed
// (1-level)/2 (measured: 0.8% against 0.625% at n = 30, level 98.75%), and the gate's false-FAIL
// budget rests on each tail separately (see CheckLevel). The binomial probabilities come from
// go-moremath, the library benchmath itself uses; exact (incomplete beta) at every n.
func MedianInterval(xs []float64, level float64) Interval {
	n := len(xs)
	if n == 0 {
		return Interval{Median: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), Confidence: math.NaN()}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	iv := Interval{Median: percentileSorted(s, 50), Lo: math.Inf(-1), Hi: math.Inf(1), N: n}
	k, tail := orderFor(n, level)
	if k == 0 {
		iv.Confidence = 0 // no interval is narrower than the whole line at this level
		return iv
	}
	iv.Lo, iv.Hi, iv.Confidence = s[k-1], s[n-k], 1-2*tail
	return iv
}

// orderFor returns the largest k (1-based) with P(Binomial(n, 1/2) <= k-1) <= (1-level)/2, and
// that probability; k = 0 when even [min, max] misses by more.
func orderFor(n int, level float64) (k int, tail float64) {
	b := stats.BinomialDist{N: n, P: 0.5}
	budget := (1 - level) / 2
	for j := 0; 2*(j+1) <= n+1; j++ { // k = j+1 may not pass the middle
		p := b.CDF(float64(j))
		if p > budget+1e-12 {
			break
		}
		k, tail = j+1, p
	}
	return k, tail
}

// MinSamples is the smallest n whose order-statistic interval of the median is bounded at
// level: 6 at 95% (coverage of [min, max] is 1 - 2/2^n = 96.9%), 7 at 97.5%, 8 at 98.75%.
func MinSamples(level float64) int {
	n := 1
	for ; n < 1000; n++ {
		if k, _ := orderFor(n, level); k > 0 {
			break
		}
	}
	return n
}

// ResolutionOf says what a race's spread can resolve on the throughput metric its verdict rests
// on (decideOn), at threshold t (negative: how much slower A may be). With the interval
// [lo, hi] around the median m, a true delta d gives about [d-(m-lo), d+(hi-m)]: it FAILs once
// d + (hi-m) < t, so the regression detected about half the time is |t| + (hi-m). The interval's
// width shrinks as 1/√n for n pairs, so width w at n pairs becomes |t| at n·(w/|t|)² pairs.
// Nil without a bounded interval.
func ResolutionOf(s *session.Summary, decideOn string) *session.Resolution {
	p, ok := s.Paired[decideOn]
	if !ok || p.CIPct == nil {
		return nil
	}
	lo, hi := p.MedianPct-p.CIPct[0], p.CIPct[1]-p.MedianPct
	r := &session.Resolution{Metric: decideOn, HalfWidthPct: max(lo, hi),
		DetectablePct: math.Abs(min(s.Thresholds.MinMedianDeltaPct, 0)) + hi}
	if t := math.Abs(s.Thresholds.MinMedianDeltaPct); t > 0 {
		need := int(math.Ceil(float64(p.N) * math.Pow(r.HalfWidthPct/t, 2)))
		need = max(need, MinSamples(s.CILevel))
		r.PairsForThreshold = need + need%2
	}
	return r
}

// CheckLevel is the two-sided interval level each of m fallible checks must use so that all of
// them together fail a build against itself with probability at most 1-family.
//
// A check FAILs only when its whole interval lies beyond its limit, and against itself (A/A)
// the true value lies on the passing side of every limit, so a false FAIL needs the interval to
// miss the true value on one given side: at most (1-level)/2, since the interval is symmetric in
// probability. Over m checks the union bound gives m(1-level)/2; setting that to 1-family gives
// level = 1 - 2(1-family)/m. One race gates throughput and p99 (m = 2): 95% per check for a 95%
// family; a profile of two races: 97.5% each.
func CheckLevel(family float64, m int) float64 {
	if m < 1 {
		m = 1
	}
	return 1 - 2*(1-family)/float64(m)
}
