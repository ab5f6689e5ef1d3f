package race

import (
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/session"
)

// Every bad sweep is named before any server starts: never a silent closed loop.
func TestSweepCheck(t *testing.T) {
	two := Options{Targets: []string{"binding", "uws"}}
	ok := []SweepOptions{
		{Options: two, Rates: []float64{1000, 2000}},
		{Options: two, Fractions: []float64{0.25, 1}, SLO: time.Millisecond},
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
		{SweepOptions{Options: two, Rates: []float64{1000, 0}}, "every rate must be above 0 requests/s (got 0)"},
		{SweepOptions{Options: two, Rates: []float64{-1}}, "every rate must be above 0 requests/s (got -1)"},
		{SweepOptions{Options: two, Fractions: []float64{0}}, "every fraction must be in (0, 1] (got 0)"},
		{SweepOptions{Options: two, Fractions: []float64{0.5, 1.5}}, "every fraction must be in (0, 1] (got 1.5)"},
		{SweepOptions{Options: two, SLO: time.Millisecond}, "--slo needs the rates to judge"},
		{SweepOptions{Options: two, Rates: []float64{1}, Fractions: []float64{0.5}}, "give one, not both"},
		{SweepOptions{Options: two}, "give --rates"},
		{SweepOptions{Options: two, Rates: []float64{1}, SLO: -time.Millisecond}, "--slo must be above 0"},
		{SweepOptions{Rates: []float64{1}}, "--targets is required"},
		{SweepOptions{Options: Options{Targets: []string{"uws", "uws"}}, Rates: []float64{1}}, `target "uws" listed twice`},
	} {
		if err := c.o.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

func TestSweepLines(t *testing.T) {
	r := 45000.0
	sw := &session.Sweep{SLOMs: 1, PerTarget: []session.SweepTarget{{Target: "binding", SLORate: &r, Points: 4}, {Target: "uws", Points: 4}}}
	got := strings.Join(SweepLines(sw), "\n")
	want := "binding: p99 under 1 ms up to 45,000 requests/s\nuws: p99 under 1 ms at none of the rates"
	if got != want {
		t.Errorf("lines\n%s\nwant\n%s", got, want)
	}
}
