package profile

import (
	"strings"
	"testing"
)

func TestRateOverrides(t *testing.T) {
	p := Default()
	o := &Overrides{Set: map[string]bool{"rate-fraction": true}, RateFraction: 0.5}
	if err := o.Apply(&p); err != nil || p.RateFraction != 0.5 || p.Rate != 0 || !p.OpenLoop() {
		t.Fatalf("fraction 0.5: %v, profile rate %g fraction %g", err, p.Rate, p.RateFraction)
	}
	// A flag replaces the profile's other kind of rate.
	o = &Overrides{Set: map[string]bool{"rate": true}, Rate: 20000}
	if err := o.Apply(&p); err != nil || p.Rate != 20000 || p.RateFraction != 0 {
		t.Fatalf("rate 20000: %v, profile rate %g fraction %g", err, p.Rate, p.RateFraction)
	}
	if d := Default(); d.OpenLoop() {
		t.Error("the default profile is an open loop")
	}
	for _, c := range []struct {
		o    Overrides
		want string
	}{
		{Overrides{Set: map[string]bool{"rate": true}, Rate: 0}, "--rate must be above 0 requests/s (got 0)"},
		{Overrides{Set: map[string]bool{"rate": true}, Rate: -5}, "--rate must be above 0 requests/s (got -5)"},
		{Overrides{Set: map[string]bool{"rate-fraction": true}, RateFraction: 0}, "--rate-fraction must be in (0, 1] (got 0)"},
		{Overrides{Set: map[string]bool{"rate-fraction": true}, RateFraction: 1.01}, "--rate-fraction must be in (0, 1] (got 1.01)"},
		{Overrides{Set: map[string]bool{"rate": true, "rate-fraction": true}, Rate: 1, RateFraction: 0.5}, "give one, not both"},
	} {
		q := Default()
		err := c.o.Apply(&q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
		if q.OpenLoop() {
			t.Errorf("%+v: the profile became an open loop anyway", c.o)
		}
	}
}

func TestRateInProfileFile(t *testing.T) {
	p, err := Parse([]byte(`{"rate_fraction": 0.75, "pairs": 6}`))
	if err != nil || p.RateFraction != 0.75 {
		t.Fatalf("%v %+v", err, p)
	}
	for _, bad := range []string{`{"rate": -1}`, `{"rate_fraction": 2}`, `{"rate": 100, "rate_fraction": 0.5}`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
