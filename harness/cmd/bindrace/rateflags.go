package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/profile"
)

// addRateFlags registers race's open-loop flags on fs, writing into o, and returns the lag
// tolerance's flag value.
func addRateFlags(fs *pflag.FlagSet, o *profile.Overrides) *time.Duration {
	fs.Float64Var(&o.Rate, "rate", 0, "open loop: offer both sides this many requests/s in all; the gate then judges p50 and p99 (default: the profile's, else a closed loop)")
	fs.Float64Var(&o.RateFraction, "rate-fraction", 0, "open loop: offer both sides this fraction, in (0, 1], of the lower of their closed-loop maxima (measured first, same pipelining)")
	return addLagFlag(fs)
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
