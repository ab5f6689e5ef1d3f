package profile

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
)

// Percent limits lie in [minLimitPct, maxLimitPct]: a delta of A over B, 100·(A/B - 1), is above
// -100% whatever A and B, so a limit under it decides every race alike; and no two servers
// differ 10,000 times, so a limit past that only ever FAILs (a test's way to force a FAIL).
const (
	minLimitPct = -100
	maxLimitPct = 1_000_000
)

// checkThresholds refuses a threshold no race can be judged by (checkThreshold).
func checkThresholds(th session.Thresholds) error {
	limits := map[string]float64{"min_median_delta_pct": th.MinMedianDeltaPct, "max_p99_delta_pct": th.MaxP99DeltaPct,
		"max_p50_delta_pct": th.MaxP50DeltaPct, "max_errors": float64(th.MaxErrors)}
	for prefix, m := range map[string]map[string]float64{"counter_delta.": th.CounterMaxDeltaPct,
		"counter.": th.CounterMaxGrowthPct, "counter_excess.": th.CounterMaxExcess} {
		for c, v := range m {
			limits[prefix+c] = v
		}
	}
	for name, v := range map[string]*float64{"syscall_max_delta_pct": th.SyscallMaxDeltaPct,
		"syscall_max_growth_pct": th.SyscallMaxGrowthPct, "live_syscall_max_delta_pct": th.LiveSyscallMaxDeltaPct} {
		if v != nil {
			limits[name] = *v
		}
	}
	for _, name := range slices.Sorted(maps.Keys(limits)) {
		if err := checkThreshold(name, limits[name]); err != nil {
			return err
		}
	}
	return nil
}

// checkThreshold refuses one limit: not a finite number; a count (max_errors, an excess in
// the counter's unit) below 0; a percent outside [minLimitPct, maxLimitPct]; a counter without
// a name.
func checkThreshold(name string, v float64) error {
	_, counter, named := strings.Cut(name, ".")
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return setting.Errorf("{thresholds} %s=%v: a limit must be a finite number", name, v)
	case named && counter == "":
		return setting.Errorf("{thresholds} %s: counter name missing", name)
	case name == "max_errors" && v < 0:
		return setting.Errorf("{thresholds} %s=%v: must not be negative: it counts errors", name, v)
	case strings.HasPrefix(name, "counter_excess."):
		if v < 0 {
			return setting.Errorf("{thresholds} %s=%v: must not be negative: an excess, in the counter's unit", name, v)
		}
	case name == "max_errors":
	case v < minLimitPct || v > maxLimitPct:
		return setting.Errorf("{thresholds} %s=%v: want %d to %d (a percent of B: A over B is above -100%% whatever both are)", name, v, minLimitPct, maxLimitPct)
	}
	return nil
}
