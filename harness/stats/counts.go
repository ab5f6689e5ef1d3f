package stats

import "math"

// A deterministic count (cachegrind instructions per response) still moves a little between
// repetitions: a Go process's runtime does timing-driven work (the scheduler's monitor, timers,
// a heap growth in one run and not another). A count is taken until two repetitions agree
// within the measurement's resolution — the noise repeats of the target show, scaled to how
// long its runs took (counters.Resolutions) — or, when the first two disagree, a third decides
// by the median.

// AgreedCount says whether repetitions xs settle a count, and its value: the mean of two that
// differ by no more than resolution (in the count's own unit), else, from three on, their
// median.
func AgreedCount(xs []float64, resolution float64) (value float64, done bool) {
	switch {
	case len(xs) < 2:
		return math.NaN(), false
	case len(xs) >= 3:
		return Median(xs), true
	}
	if math.Abs(xs[0]-xs[1]) <= resolution {
		return (xs[0] + xs[1]) / 2, true
	}
	return math.NaN(), false
}
