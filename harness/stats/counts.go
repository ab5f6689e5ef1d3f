package stats

import "math"

// A deterministic count (cachegrind instructions per response) still moves a little between
// repetitions: a Go process's runtime does timing-driven work (the scheduler's monitor, timers,
// a heap growth in one run and not another). A count is taken until two repetitions agree
// within the measurement's resolution — the noise repeats of the target show, scaled to how
// long its runs took (counters.Resolutions) — or, when the first two disagree, a third decides
// by the median.

// AgreedCount says whether repetitions xs settle a count, and its value: the mean of two that
// differ by no more than the finer of their resolutions (res[i] is xs[i]'s, in the count's own
// unit), else, from three on, their median. The finer one, because a repetition that caught a
// one-off (a heap growth's page search, some 80,000 instructions) carries a coarse resolution
// of its own, from its negative rows, and must not vouch for itself: with the coarser, 1,840.0
// and 1,864.5 "agreed" within 38.2 (docs/counters.md, "Counts that repeat").
func AgreedCount(xs, res []float64) (value float64, done bool) {
	switch {
	case len(xs) < 2:
		return math.NaN(), false
	case len(xs) >= 3:
		return Median(xs), true
	}
	if math.Abs(xs[0]-xs[1]) <= min(res[0], res[1]) {
		return (xs[0] + xs[1]) / 2, true
	}
	return math.NaN(), false
}
