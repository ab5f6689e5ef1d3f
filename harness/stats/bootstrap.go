package stats

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Resamples is the bootstrap's resample count: at 10,000 the 2.5th/97.5th percentiles move by
// far less than the precision reports print, and it costs milliseconds for tens of pairs.
const Resamples = 10000

// BootstrapMedianCI returns a 95% confidence interval of the median of xs by the percentile
// bootstrap: draw len(xs) values with replacement, take their median, repeat `resamples` times,
// and report the 2.5th and 97.5th percentiles (type 7, as Percentile) of those medians.
//
// The RNG is PCG seeded from seed alone, so the same input and seed give the same interval on
// every machine and Go version (math/rand/v2's PCG is a specified algorithm); the seed is
// recorded with the session. resamples <= 0 means Resamples. NaN, NaN for no values.
//
// With few pairs the median of a resample can only take a handful of values, so the interval is
// coarse (it is made of observed deltas and midpoints of neighbours); that is honest for 10 pairs.
func BootstrapMedianCI(xs []float64, resamples int, seed int64) (lo, hi float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	if resamples <= 0 {
		resamples = Resamples
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x62696e6472616365)) // "bindrace"
	medians := make([]float64, resamples)
	sample := make([]float64, n)
	for i := range medians {
		for j := range sample {
			sample[j] = xs[rng.IntN(n)]
		}
		sort.Float64s(sample)
		medians[i] = percentileSorted(sample, 50)
	}
	sort.Float64s(medians)
	return percentileSorted(medians, 2.5), percentileSorted(medians, 97.5)
}
