package kinds

import (
	"strings"
	"testing"
	"time"
)

// Every bad sweep is named before any server starts: never a silent closed loop.
func TestSweepCheck(t *testing.T) {
	two := []string{"binding", "uws"}
	ok := []SweepOptions{
		{Targets: two, Rates: []float64{1000, 2000}},
		{Targets: two, Fractions: []float64{0.25, 1}, SLO: time.Millisecond},
	}
	for _, o := range ok {
		if err := o.Check(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
	for _, c := range []struct {
		o    SweepOptions
		want string
	}{
		{SweepOptions{Targets: two, Rates: []float64{1000, 0}}, "every rate must be above 0 requests/s (got 0)"},
		{SweepOptions{Targets: two, Rates: []float64{-1}}, "every rate must be above 0 requests/s (got -1)"},
		{SweepOptions{Targets: two, Fractions: []float64{0}}, "every fraction must be in (0, 1] (got 0)"},
		{SweepOptions{Targets: two, Fractions: []float64{0.5, 1.5}}, "every fraction must be in (0, 1] (got 1.5)"},
		{SweepOptions{Targets: two, SLO: time.Millisecond}, "slo needs the rates to judge"},
		{SweepOptions{Targets: two, Rates: []float64{1}, Fractions: []float64{0.5}}, "give one, not both"},
		{SweepOptions{Targets: two}, "give rates"},
		{SweepOptions{Targets: two, Rates: []float64{1}, SLO: -time.Millisecond}, "slo must be above 0"},
		{SweepOptions{Rates: []float64{1}}, "targets is required"},
		{SweepOptions{Targets: []string{"uws", "uws"}, Rates: []float64{1}}, `target "uws" listed twice`},
	} {
		if err := c.o.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}
