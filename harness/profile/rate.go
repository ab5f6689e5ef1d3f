package profile

import (
	"errors"
	"fmt"
)

// CheckRate validates a profile's open-loop rate: absent (0), or above 0; a fraction absent or
// in (0, 1]; not both.
func CheckRate(rate, fraction float64) error {
	switch {
	case rate < 0 || rate != rate:
		return fmt.Errorf("rate must be above 0 requests/s (got %g); leave it out for a closed loop", rate)
	case fraction < 0 || fraction > 1 || fraction != fraction:
		return fmt.Errorf("rate_fraction must be in (0, 1] (got %g): a share of the closed-loop maximum", fraction)
	case rate > 0 && fraction > 0:
		return errors.New("set rate or rate_fraction, not both")
	}
	return nil
}

// OpenLoop reports whether the profile races at a rate.
func (p *Profile) OpenLoop() bool { return p.Rate > 0 || p.RateFraction > 0 }

// applyRate writes --rate and --rate-fraction over p. A flag given with 0 or below (or a
// fraction above 1) is an error, never a silent closed loop.
func (o *Overrides) applyRate(p *Profile) error {
	if o.changed("rate") && o.changed("rate-fraction") {
		return errors.New("--rate and --rate-fraction: give one, not both")
	}
	if o.changed("rate") {
		if !(o.Rate > 0) {
			return fmt.Errorf("--rate must be above 0 requests/s (got %g); leave it out for a closed loop", o.Rate)
		}
		p.Rate, p.RateFraction = o.Rate, 0
	}
	if o.changed("rate-fraction") {
		if !(o.RateFraction > 0 && o.RateFraction <= 1) {
			return fmt.Errorf("--rate-fraction must be in (0, 1] (got %g): a share of the closed-loop maximum", o.RateFraction)
		}
		p.Rate, p.RateFraction = 0, o.RateFraction
	}
	return nil
}
