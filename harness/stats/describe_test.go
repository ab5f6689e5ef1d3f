package stats

import (
	"math"
	"testing"
)

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

func TestDescriptive(t *testing.T) {
	odd := []float64{5, 1, 3}
	even := []float64{4, 1, 3, 2}
	cases := []struct {
		name      string
		got, want float64
	}{
		{"median odd", Median(odd), 3},
		{"median even", Median(even), 2.5},
		{"mean", Mean(even), 2.5},
		// sample stddev of 1..4: sqrt(5/3)
		{"stddev", Stddev(even), math.Sqrt(5.0 / 3)},
		{"cv", CVPct([]float64{90, 110}), math.Sqrt(200) / 100 * 100},
		{"min", Min(odd), 1},
		{"max", Max(odd), 5},
		{"p0", Percentile(even, 0), 1},
		{"p100", Percentile(even, 100), 4},
		// type 7: h = 0.95*3 = 2.85 -> 3 + 0.85*(4-3)
		{"p95", Percentile(even, 95), 3.85},
		{"delta", DeltaPct(112.71, 100), 12.71},
		{"delta negative", DeltaPct(90, 100), -10},
	}
	for _, c := range cases {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if odd[0] != 5 {
		t.Error("Median reordered its input")
	}
}

func TestUndefinedIsNaN(t *testing.T) {
	for name, v := range map[string]float64{
		"median empty":  Median(nil),
		"mean empty":    Mean(nil),
		"stddev one":    Stddev([]float64{1}),
		"cv zero mean":  CVPct([]float64{-1, 1}),
		"delta by zero": DeltaPct(1, 0),
		"min empty":     Min(nil),
	} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN", name, v)
		}
	}
}

func TestPearson(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4}
	if r, ok := Pearson(x, []float64{1, 3, 5, 7, 9}); !ok || !near(r, 1, 1e-12) {
		t.Errorf("perfect positive: %v %v", r, ok)
	}
	if r, ok := Pearson(x, []float64{9, 7, 5, 3, 1}); !ok || !near(r, -1, 1e-12) {
		t.Errorf("perfect negative: %v %v", r, ok)
	}
	// Symmetric around the middle: no linear relation.
	if r, ok := Pearson(x, []float64{2, 1, 0, 1, 2}); !ok || !near(r, 0, 1e-12) {
		t.Errorf("zero: %v %v", r, ok)
	}
	if _, ok := Pearson(x, []float64{1, 1, 1, 1, 1}); ok {
		t.Error("constant series must be undefined")
	}
	if _, ok := Pearson(x, x[:3]); ok {
		t.Error("length mismatch must be undefined")
	}
}
