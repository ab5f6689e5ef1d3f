package stats

import (
	"math"
	"sort"
)

// Mean is the arithmetic mean; NaN for no values.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// Median is the middle value, or the mean of the two middle values for an even count; NaN for
// no values. The input is not reordered.
func Median(xs []float64) float64 {
	return Percentile(xs, 50)
}

// Stddev is the sample standard deviation (n-1 in the denominator): runs are a sample of what
// the machine could produce, not the whole population. NaN for fewer than two values.
func Stddev(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	m := Mean(xs)
	ss := 0.0
	for _, x := range xs {
		d := x - m
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(xs)-1))
}

// CVPct is the coefficient of variation in percent: sample stddev over mean. NaN when either is
// undefined or the mean is zero.
func CVPct(xs []float64) float64 {
	m := Mean(xs)
	if m == 0 {
		return math.NaN()
	}
	return Stddev(xs) / math.Abs(m) * 100
}

// Min is the smallest value; NaN for no values.
func Min(xs []float64) float64 { return fold(xs, math.Min) }

// Max is the largest value; NaN for no values.
func Max(xs []float64) float64 { return fold(xs, math.Max) }

// fold combines the values left to right with f; NaN for no values.
func fold(xs []float64, f func(a, b float64) float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	m := xs[0]
	for _, x := range xs[1:] {
		m = f(m, x)
	}
	return m
}

// Percentile returns the p-th percentile (0..100) by linear interpolation between closest ranks
// (Hyndman & Fan type 7, the default of R and NumPy), so the 50th percentile is the usual median
// and results agree with what a reader would compute in a spreadsheet. NaN for no values.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return percentileSorted(s, p)
}

// percentileSorted is Percentile for already sorted input (MedianInterval sorts once and reads
// the median and the order statistics from the same slice).
func percentileSorted(s []float64, p float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	p = math.Max(0, math.Min(100, p))
	h := p / 100 * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// DeltaPct is how much a exceeds b, in percent of b: (a-b)/b*100. NaN when b is zero, because
// "infinitely faster than a run that did nothing" is not a figure to print.
func DeltaPct(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return (a - b) / b * 100
}

// finite maps NaN and ±Inf to 0 for fields that go into JSON.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
