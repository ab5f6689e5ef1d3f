package round

import (
	"math"
	"testing"
)

func TestTo(t *testing.T) {
	for _, c := range []struct {
		v      float64
		places int
		want   float64
	}{
		{2.345, 2, 2.35}, {-2.345, 2, -2.35}, {0.0016, 3, 0.002}, {-0.0016, 3, -0.002},
		{1234.56, 1, 1234.6}, {1234.5, 0, 1235}, {0.1234565, 6, 0.123457}, {0, 2, 0},
	} {
		if got := To(c.v, c.places); got != c.want {
			t.Errorf("To(%v, %d) = %v, want %v", c.v, c.places, got, c.want)
		}
	}
}

func TestReadable(t *testing.T) {
	for _, c := range []struct{ v, want float64 }{
		{1834.6543, 1834.7}, {3.14159, 3.142}, {0.00012345678, 0.000123}, {-2.5e-7, -0}, {math.NaN(), 0}, {math.Inf(-1), 0},
	} {
		if got := Readable(c.v); got != c.want {
			t.Errorf("Readable(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}
