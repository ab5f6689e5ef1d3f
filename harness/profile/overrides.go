package profile

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Overrides are the values that override a profile: the race/matrix flags. Only the fields
// named in Set (by their flag's name, e.g. "pairs", "cpus-server") override anything;
// Thresholds always apply.
type Overrides struct {
	Set map[string]bool

	Profile string
	Pairs   int // a fixed design of Pairs pairs
	// a sequential design (each replaces the profile's; a fixed profile turns sequential)
	MinPairs, MaxPairs int
	MaxTime            time.Duration
	Windows            int
	Rounds             int
	Duration           time.Duration
	Warmup             time.Duration
	Settle             time.Duration
	Cooldown           time.Duration
	Connections        int
	Pipelining         int
	Workers            int
	Threads            int
	Scenario           string
	Thresholds         []string
	CPUsServer         string
	CPUsClient         string
	Counters           string
	DecideOn           string
	Confidence         float64
	BusySample         time.Duration
	CGN                int
	CGReps             int
	Loadgen            string

	// race: an open loop at Rate, or at RateFraction of the lower closed-loop maximum
	Rate, RateFraction float64
}

func (o *Overrides) changed(name string) bool {
	return o.Set[name]
}

// Apply writes the given flags over p and re-checks it.
func (o *Overrides) Apply(p *Profile) error {
	o.applyValues(p)
	if err := o.applyDesign(p); err != nil {
		return err
	}
	if err := o.applyDurations(p); err != nil {
		return err
	}
	if err := o.applyScenario(p); err != nil {
		return err
	}
	if err := o.applyRate(p); err != nil {
		return err
	}
	for _, t := range o.Thresholds {
		if err := applyThreshold(p, t); err != nil {
			return err
		}
	}
	if err := p.Check(); err != nil {
		return fmt.Errorf("bad flag value: %w", err)
	}
	return nil
}

// applyValues writes the counts and names given over p.
func (o *Overrides) applyValues(p *Profile) {
	set(o, "windows", o.Windows, &p.Windows)
	set(o, "rounds", o.Rounds, &p.Rounds)
	set(o, "connections", o.Connections, &p.Connections)
	set(o, "pipelining", o.Pipelining, &p.Pipelining)
	set(o, "workers", o.Workers, &p.Workers)
	set(o, "threads", o.Threads, &p.Threads)
	set(o, "cachegrind-n", o.CGN, &p.CachegrindN)
	set(o, "cachegrind-reps", o.CGReps, &p.CachegrindReps)
	set(o, "cpus-server", o.CPUsServer, &p.CPUsServer)
	set(o, "cpus-client", o.CPUsClient, &p.CPUsClient)
	set(o, "loadgen", o.Loadgen, &p.Loadgen)
	set(o, "decide-on", o.DecideOn, &p.DecideOn)
	set(o, "confidence", o.Confidence, &p.Confidence)
	if o.changed("counters") {
		p.Counters = o.Counters
		if p.Counters == "none" {
			p.Counters = ""
		}
	}
}

// applyDesign writes the design flags over p: --pairs makes it fixed, --min-pairs, --max-pairs
// and --max-time sequential (from the defaults of 6 to 30 pairs with no time limit where the
// profile was fixed). Both kinds at once are an error.
func (o *Overrides) applyDesign(p *Profile) error {
	seq := o.changed("min-pairs") || o.changed("max-pairs") || o.changed("max-time")
	switch {
	case o.changed("pairs") && seq:
		return errors.New("--pairs sets a fixed design of that many pairs; --min-pairs, --max-pairs and --max-time a sequential one: give one kind")
	case o.changed("pairs"):
		p.Pairs, p.Sequential = o.Pairs, nil
	case seq:
		sq := Sequential{MinPairs: 6, MaxPairs: 30}
		if p.Sequential != nil {
			sq = *p.Sequential
		}
		set(o, "min-pairs", o.MinPairs, &sq.MinPairs)
		set(o, "max-pairs", o.MaxPairs, &sq.MaxPairs)
		if o.changed("max-time") {
			if o.MaxTime < 0 {
				return errors.New("--max-time must not be negative")
			}
			sq.MaxTime = Duration(o.MaxTime)
		}
		p.Sequential, p.Pairs = &sq, 0
	}
	return nil
}

// set writes v to dst when the flag name was given.
func set[T any](o *Overrides, name string, v T, dst *T) {
	if o.changed(name) {
		*dst = v
	}
}

// applyDurations writes the durations given over p: the pauses must not be negative (Check
// judges the measured window).
func (o *Overrides) applyDurations(p *Profile) error {
	if o.changed("duration") {
		p.Duration = Duration(o.Duration)
	}
	for _, f := range []struct {
		name string
		v    time.Duration
		dst  *Duration
	}{{"warmup", o.Warmup, &p.Warmup}, {"settle", o.Settle, &p.Settle}, {"cooldown", o.Cooldown, &p.Cooldown}, {"busy-sample", o.BusySample, &p.BusySample}} {
		if !o.changed(f.name) {
			continue
		}
		if f.v < 0 {
			return fmt.Errorf("--%s must not be negative", f.name)
		}
		*f.dst = Duration(f.v)
	}
	return nil
}

// applyScenario replaces p's scenarios (and drops its extra races) with the comma-separated
// list given.
func (o *Overrides) applyScenario(p *Profile) error {
	if !o.changed("scenario") {
		return nil
	}
	var list []string
	for _, s := range strings.Split(o.Scenario, ",") {
		if s = strings.TrimSpace(s); s != "" {
			list = append(list, s)
		}
	}
	if len(list) == 0 {
		return fmt.Errorf("--scenario: empty")
	}
	p.Scenario, p.Scenarios, p.ExtraRaces = "", nil, nil
	if len(list) == 1 {
		p.Scenario = list[0]
	} else {
		p.Scenarios = list
	}
	return nil
}

func applyThreshold(p *Profile, s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		name, val = "min_median_delta_pct", s
	}
	name = strings.TrimSpace(strings.ReplaceAll(name, "-", "_"))
	f, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(val, "%")), 64)
	if err != nil {
		return fmt.Errorf("--threshold %q: %q is not a number", s, val)
	}
	switch {
	case name == "min_median_delta_pct" || name == "min_median_delta":
		p.Thresholds.MinMedianDeltaPct = f
	case name == "max_p99_delta_pct" || name == "max_p99_delta":
		p.Thresholds.MaxP99DeltaPct = f
	case name == "max_p50_delta_pct" || name == "max_p50_delta":
		p.Thresholds.MaxP50DeltaPct = f
	case strings.HasPrefix(name, "counter_delta."):
		return setCounterLimit(&p.Thresholds.CounterMaxDeltaPct, s, strings.TrimPrefix(name, "counter_delta."), f)
	case name == "max_errors":
		if f < 0 || f != float64(int64(f)) {
			return fmt.Errorf("--threshold %q: max_errors must be a whole number ≥ 0", s)
		}
		p.Thresholds.MaxErrors = int64(f)
	case strings.HasPrefix(name, "counter."):
		return setCounterLimit(&p.Thresholds.CounterMaxGrowthPct, s, strings.TrimPrefix(name, "counter."), f)
	default:
		return fmt.Errorf("--threshold %q: unknown threshold %q (known: min_median_delta_pct, max_p99_delta_pct, max_p50_delta_pct (open loop), max_errors, counter.<name> (growth vs a baseline), counter_delta.<name> (A vs B))", s, name)
	}
	return nil
}

// setCounterLimit sets the limit of counter c in *m (made when nil); arg is the --threshold
// value, for the error.
func setCounterLimit(m *map[string]float64, arg, c string, limit float64) error {
	if c == "" {
		return fmt.Errorf("--threshold %q: counter name missing", arg)
	}
	if *m == nil {
		*m = map[string]float64{}
	}
	(*m)[c] = limit
	return nil
}
