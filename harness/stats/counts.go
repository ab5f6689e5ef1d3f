package stats

import "math"

// A deterministic count (cachegrind instructions per response) still moves a little between
// repetitions: a Go process's runtime does timing-driven work (the scheduler's monitor, timers,
// a heap growth in one run and not another). A count is taken until two repetitions agree
// within the target's resolution — the spread measured across its repeats — or, when the first
// two disagree, a third decides by the median.

// AgreedCount says whether repetitions xs settle a count at resolutionPct, and its value: the
// mean of two that agree (their difference within resolutionPct of the smaller), else, from
// three on, their median.
func AgreedCount(xs []float64, resolutionPct float64) (value float64, done bool) {
	switch {
	case len(xs) < 2:
		return math.NaN(), false
	case len(xs) >= 3:
		return Median(xs), true
	}
	lo, hi := min(xs[0], xs[1]), max(xs[0], xs[1])
	if lo > 0 && (hi-lo)/lo*100 <= resolutionPct {
		return (lo + hi) / 2, true
	}
	return math.NaN(), false
}
