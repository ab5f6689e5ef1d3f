package stats

import "math"

// Pearson returns the Pearson correlation coefficient of x and y. ok is false when it is
// undefined: different lengths, fewer than two points, or no variation in either series (a
// constant has no correlation with anything, and 0 would wrongly read as "no bias").
func Pearson(x, y []float64) (r float64, ok bool) {
	n := len(x)
	if n != len(y) || n < 2 {
		return 0, false
	}
	mx, my := Mean(x), Mean(y)
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	r = sxy / math.Sqrt(sxx*syy)
	// Rounding can push a perfect correlation a hair past ±1.
	return math.Max(-1, math.Min(1, r)), true
}
