package main

import (
	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/profile"
)

// addRateFlags registers race's open-loop flags on fs, writing into o.
func addRateFlags(fs *pflag.FlagSet, o *profile.Overrides) {
	fs.Float64Var(&o.Rate, "rate", 0, "open loop: offer both sides this many requests/s in all; the gate then judges p50 and p99 (default: the profile's, else a closed loop)")
	fs.Float64Var(&o.RateFraction, "rate-fraction", 0, "open loop: offer both sides this fraction, in (0, 1], of the lower of their closed-loop maxima (measured first, same pipelining)")
}
