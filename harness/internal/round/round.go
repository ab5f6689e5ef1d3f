// Package round is the one way the harness rounds a figure it stores (summary.json, raw.json,
// the load generator's output, counters' JSON): half away from zero, to a fixed number of
// decimals. Display formatting is not storage and stays with what prints it.
package round

import "math"

// To rounds v to places decimals, half away from zero (2.345 -> 2.35, -2.345 -> -2.35).
func To(v float64, places int) float64 {
	p := math.Pow10(places)
	return math.Round(v*p) / p
}

// Readable keeps a figure of any size readable in JSON: one decimal from 1,000 up, three from
// 1, six below; NaN and ±Inf, which JSON cannot hold, become 0.
func Readable(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	switch a := math.Abs(v); {
	case a >= 1000:
		return To(v, 1)
	case a >= 1:
		return To(v, 3)
	default:
		return To(v, 6)
	}
}
