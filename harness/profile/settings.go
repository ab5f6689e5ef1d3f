package profile

import (
	"math"
	"strconv"
	"strings"

	"github.com/bindrace/bindrace/harness/setting"
)

// Setter writes a user's settings over a loaded profile, one method a setting, as the CLI's
// flags do (p.Set().Pairs(8)); Profile's own methods only read it. Each error names its
// setting (setting.Error), and Check re-checks the whole profile after.
type Setter struct{ p *Profile }

// Set returns the setter of p's settings.
func (p *Profile) Set() Setter { return Setter{p} }

// Scenarios replaces the profile's scenarios (and drops its extra races) with the
// comma-separated list given.
func (set Setter) Scenarios(list string) error {
	var names []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			names = append(names, s)
		}
	}
	if len(names) == 0 {
		return setting.Errorf("{scenarios}: empty")
	}
	set.p.Scenario, set.p.Scenarios, set.p.ExtraRaces = "", nil, nil
	if len(names) == 1 {
		set.p.Scenario = names[0]
	} else {
		set.p.Scenarios = names
	}
	return nil
}

// Pairs makes the race's design a fixed one of n pairs, whatever the profile planned.
func (set Setter) Pairs(n int) error {
	set.p.Pairs, set.p.Sequential = n, nil
	return nil
}

// MinPairs, MaxPairs and MaxTime make the design sequential (from the profile's budget, or
// from 6 to 30 pairs with no time limit where the profile was fixed) and set its first look,
// its last look or its wall-clock budget.
func (set Setter) MinPairs(n int) error {
	set.sequential().MinPairs = n
	return nil
}

func (set Setter) MaxPairs(n int) error {
	set.sequential().MaxPairs = n
	return nil
}

func (set Setter) MaxTime(d Duration) error {
	if d < 0 {
		return setting.Errorf("{max_time} must not be negative (got %s)", d.D())
	}
	set.sequential().MaxTime = d
	return nil
}

// sequential is the profile's sequential budget, made from the defaults when it was fixed.
func (set Setter) sequential() *Sequential {
	if set.p.Sequential == nil {
		set.p.Sequential = &Sequential{MinPairs: 6, MaxPairs: 30}
	}
	set.p.Pairs = 0
	return set.p.Sequential
}

// Rate makes every race an open loop at rate requests/s in all (replacing the profile's
// rate_fraction). 0 or below is an error, never a silent closed loop.
func (set Setter) Rate(rate float64) error {
	if !(rate > 0) {
		return setting.Errorf("{rate} must be above 0 requests/s (got %g); leave it out for a closed loop", rate)
	}
	set.p.Rate, set.p.RateFraction = rate, 0
	return nil
}

// RateFraction makes every race an open loop at this fraction, in (0, 1], of the lower of
// the two sides' closed-loop maxima (replacing the profile's rate).
func (set Setter) RateFraction(f float64) error {
	if !(f > 0 && f <= 1) {
		return setting.Errorf("{rate_fraction} must be in (0, 1] (got %g): a share of the closed-loop maximum", f)
	}
	set.p.Rate, set.p.RateFraction = 0, f
	return nil
}

// Threshold sets one gate threshold: a bare number is min_median_delta_pct; otherwise
// name=value for min_median_delta_pct, max_p99_delta_pct, max_p50_delta_pct, max_errors,
// counter.<name> (growth over a baseline) or counter_delta.<name> (A against B).
func (set Setter) Threshold(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		name, val = "min_median_delta_pct", s
	}
	// Dashes become underscores in the threshold's own name only: a counter's name keeps its
	// own (counter.branch-misses, counter_excess.rss-growth).
	kind, counter, _ := strings.Cut(strings.TrimSpace(name), ".")
	name = strings.ReplaceAll(kind, "-", "_")
	if counter != "" {
		name += "." + counter
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(val, "%")), 64)
	if err != nil {
		return setting.Errorf("{thresholds} %q: %q is not a number", s, val)
	}
	if err := checkThreshold(name, f); err != nil {
		return err
	}
	switch {
	case name == "min_median_delta_pct" || name == "min_median_delta":
		set.p.Thresholds.MinMedianDeltaPct = f
	case name == "max_p99_delta_pct" || name == "max_p99_delta":
		set.p.Thresholds.MaxP99DeltaPct = f
	case name == "max_p50_delta_pct" || name == "max_p50_delta":
		set.p.Thresholds.MaxP50DeltaPct = f
	case strings.HasPrefix(name, "counter_delta."):
		setCounterLimit(&set.p.Thresholds.CounterMaxDeltaPct, strings.TrimPrefix(name, "counter_delta."), f)
	case strings.HasPrefix(name, "counter_excess."):
		setCounterLimit(&set.p.Thresholds.CounterMaxExcess, strings.TrimPrefix(name, "counter_excess."), f)
	case name == "max_errors":
		if f != math.Trunc(f) || f > 1<<53 {
			return setting.Errorf("{thresholds} %q: max_errors must be a whole number ≥ 0", s)
		}
		set.p.Thresholds.MaxErrors = int64(f)
	case strings.HasPrefix(name, "counter."):
		setCounterLimit(&set.p.Thresholds.CounterMaxGrowthPct, strings.TrimPrefix(name, "counter."), f)
	case name == "syscall_max_delta_pct":
		set.p.Thresholds.SyscallMaxDeltaPct = &f
	case name == "syscall_max_growth_pct":
		set.p.Thresholds.SyscallMaxGrowthPct = &f
	case name == "live_syscall_max_delta_pct":
		set.p.Thresholds.LiveSyscallMaxDeltaPct = &f
	default:
		return setting.Errorf("{thresholds} %q: unknown threshold %q (known: min_median_delta_pct, max_p99_delta_pct, max_p50_delta_pct (open loop), max_errors, counter.<name> (growth vs a baseline), counter_delta.<name> (A vs B), counter_excess.<name> (A over B, in the counter's unit), syscall_max_delta_pct and syscall_max_growth_pct (paced system calls, A vs B and vs a baseline), live_syscall_max_delta_pct (system calls under the live load, A vs B))", s, name)
	}
	return nil
}

// setCounterLimit sets the limit of counter c in *m (made when nil).
func setCounterLimit(m *map[string]float64, c string, limit float64) {
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[c] = limit
}

// Sample adds the sample counters mode to the profile's (on), or takes it out.
func (set Setter) Sample(on bool) error {
	modes, err := ParseCounters(set.p.Counters)
	if err != nil {
		return err
	}
	modes[CountersSample] = on
	var keep []string
	for _, m := range []string{CountersPerf, CountersCachegrind, CountersSyscalls, CountersSample} {
		if modes[m] {
			keep = append(keep, m)
		}
	}
	set.p.Counters = strings.Join(keep, ",")
	return nil
}
