package profile

import (
	"strings"
	"testing"
)

func TestSetRate(t *testing.T) {
	p := Default()
	if err := p.Set().RateFraction(0.5); err != nil || p.RateFraction != 0.5 || p.Rate != 0 || !p.OpenLoop() {
		t.Fatalf("fraction 0.5: %v, profile rate %g fraction %g", err, p.Rate, p.RateFraction)
	}
	// A rate replaces the profile's other kind of rate.
	if err := p.Set().Rate(20000); err != nil || p.Rate != 20000 || p.RateFraction != 0 {
		t.Fatalf("rate 20000: %v, profile rate %g fraction %g", err, p.Rate, p.RateFraction)
	}
	if d := Default(); d.OpenLoop() {
		t.Error("the default profile is an open loop")
	}
	for _, c := range []struct {
		set  func(*Profile) error
		want string
	}{
		{func(p *Profile) error { return p.Set().Rate(0) }, "rate must be above 0 requests/s (got 0)"},
		{func(p *Profile) error { return p.Set().Rate(-5) }, "rate must be above 0 requests/s (got -5)"},
		{func(p *Profile) error { return p.Set().RateFraction(0) }, "rate_fraction must be in (0, 1] (got 0)"},
		{func(p *Profile) error { return p.Set().RateFraction(1.01) }, "rate_fraction must be in (0, 1] (got 1.01)"},
	} {
		q := Default()
		err := c.set(&q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
		if q.OpenLoop() {
			t.Errorf("%v: the profile became an open loop anyway", err)
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
