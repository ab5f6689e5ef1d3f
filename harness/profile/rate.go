package profile

import "github.com/bindrace/bindrace/harness/setting"

// CheckRate validates a profile's open-loop rate: absent (0), or above 0; a fraction absent or
// in (0, 1]; not both.
func CheckRate(rate, fraction float64) error {
	switch {
	case rate < 0 || rate != rate:
		return setting.Errorf("{rate} must be above 0 requests/s (got %g); leave it out for a closed loop", rate)
	case fraction < 0 || fraction > 1 || fraction != fraction:
		return setting.Errorf("{rate_fraction} must be in (0, 1] (got %g): a share of the closed-loop maximum", fraction)
	case rate > 0 && fraction > 0:
		return setting.Errorf("set {rate} or {rate_fraction}, not both")
	}
	return nil
}

// OpenLoop reports whether the profile races at a rate.
func (p *Profile) OpenLoop() bool { return p.Rate > 0 || p.RateFraction > 0 }
