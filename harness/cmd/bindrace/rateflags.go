package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/profile"
)

// addRateFlags registers race's open-loop flags on fs, written into the profile by pf, and
// returns the lag tolerance's flag value.
func addRateFlags(fs *pflag.FlagSet, pf *profileFlags) *time.Duration {
	setter(pf, fs, "rate", "float", "open loop: offer both sides this many requests/s in all; the gate then judges p50 and p99 (default: the profile's, else a closed loop)", parseFloat, profile.Setter.Rate)
	setter(pf, fs, "rate-fraction", "float", "open loop: offer both sides this fraction, in (0, 1], of the lower of their closed-loop maxima (measured first, same pipelining)", parseFloat, profile.Setter.RateFraction)
	return addLagFlag(fs)
}

// checkRateFlags refuses --rate and --rate-fraction together, and a --lag-tolerance not above 0.
func checkRateFlags(fs *pflag.FlagSet, lag time.Duration) error {
	if fs.Changed("rate") && fs.Changed("rate-fraction") {
		return fmt.Errorf("--rate and --rate-fraction: give one, not both")
	}
	return lagTolerance(fs, lag)
}

// addLagFlag registers --lag-tolerance (race and sweep).
func addLagFlag(fs *pflag.FlagSet) *time.Duration {
	return fs.Duration("lag-tolerance", time.Millisecond, "open loop: send lag p99 above which a run is marked generator-bound")
}

// lagTolerance checks --lag-tolerance: above 0.
func lagTolerance(fs *pflag.FlagSet, v time.Duration) error {
	if fs.Changed("lag-tolerance") && v <= 0 {
		return fmt.Errorf("--lag-tolerance must be above 0 (got %s)", v)
	}
	return nil
}
