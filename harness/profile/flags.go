package profile

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Overrides are the race/matrix flags that override a profile. Only flags given on the
// command line (pflag's Changed) override anything.
type Overrides struct {
	fs *pflag.FlagSet

	Profile     string
	Pairs       int
	Windows     int
	Rounds      int
	Duration    time.Duration
	Warmup      time.Duration
	Settle      time.Duration
	Cooldown    time.Duration
	Connections int
	Pipelining  int
	Workers     int
	Threads     int
	Scenario    string
	Thresholds  []string
	CPUsServer  string
	CPUsClient  string
	Counters    string
	DecideOn    string
	Confidence  float64
	BusySample  time.Duration
	CGN         int
	CGReps      int
	Loadgen     string
}

// AddFlags registers the override flags on fs. defProfile is the profile used when
// --profile is not given.
func AddFlags(fs *pflag.FlagSet, defProfile string, matrix bool) *Overrides {
	o := &Overrides{fs: fs}
	fs.StringVar(&o.Profile, "profile", defProfile, "profile name (profiles/<name>.json) or path to a profile file")
	if matrix {
		fs.IntVar(&o.Rounds, "rounds", 0, "rounds; each round runs every target once in a shuffled order (default from the profile)")
	} else {
		fs.IntVar(&o.Pairs, "pairs", 0, "number of AB/BA pairs (default from the profile)")
		fs.IntVar(&o.Windows, "windows", 0, "measured windows per run: 1 = a fresh process per run; more = both servers of a pair live, windows interleaved A B B A (default from the profile)")
	}
	fs.DurationVar(&o.Duration, "duration", 0, "measured window of each run, e.g. 10s")
	fs.DurationVar(&o.Warmup, "warmup", 0, "warm-up before each measured window (excluded from every figure)")
	fs.DurationVar(&o.Settle, "settle", 0, "pause between warm-up and the measured window")
	fs.DurationVar(&o.Cooldown, "cooldown", 0, "pause between runs")
	fs.IntVar(&o.Connections, "connections", 0, "client connections")
	fs.IntVar(&o.Pipelining, "pipelining", 0, "requests in flight per connection")
	fs.IntVar(&o.Workers, "workers", 0, "client workers (capped to the client's CPUs)")
	fs.IntVar(&o.Threads, "threads", 0, "server threads (0 = one per server CPU)")
	fs.StringVar(&o.Scenario, "scenario", "", "scenario(s), comma-separated: ping, params, json, stream (replaces the profile's scenarios and extra races)")
	fs.StringArrayVar(&o.Thresholds, "threshold", nil, "gate threshold: a number sets min_median_delta_pct (e.g. -3); or name=value for min_median_delta_pct, max_p99_delta_pct, max_errors, counter_delta.<name> (max % A over B, deterministic counts), counter.<name> (max % growth over a baseline); repeatable")
	fs.StringVar(&o.CPUsServer, "cpus-server", "", "CPUs for the server (taskset list, e.g. 1 or 2-3)")
	fs.StringVar(&o.CPUsClient, "cpus-client", "", "CPUs for the load generator (taskset list)")
	fs.StringVar(&o.Counters, "counters", "", `per-response counters: "perf", "cachegrind" (deterministic, gated A vs B), "perf,cachegrind" or "none" (default from the profile)`)
	fs.DurationVar(&o.BusySample, "busy-sample", 0, "how long the machine's idle and steal time are read before each run (default from the profile, 1s; 0 skips it)")
	fs.IntVar(&o.CGN, "cachegrind-n", 0, "requests of the first cachegrind run per repetition; the second sends 2N (default from the profile)")
	fs.IntVar(&o.CGReps, "cachegrind-reps", 0, "cachegrind N/2N measurements per side; the median is gated (default from the profile)")
	fs.StringVar(&o.Loadgen, "loadgen", "", `load generator: "builtin" or "wrk" (HTTP scenarios; whole seconds) (default from the profile)`)
	fs.StringVar(&o.DecideOn, "decide-on", "", `throughput figure the verdict rests on: "rps" or "rps_per_cpu_second" (default from the profile)`)
	fs.Float64Var(&o.Confidence, "confidence", 0, "family confidence of the gate: an A/A race FAILs at most 1-confidence of the time over all checks (default from the profile, 0.95)")
	return o
}

func (o *Overrides) changed(name string) bool {
	return o.fs != nil && o.fs.Changed(name)
}

// Apply writes the given flags over p and re-checks it.
func (o *Overrides) Apply(p *Profile) error {
	if o.changed("pairs") {
		p.Pairs = o.Pairs
	}
	if o.changed("windows") {
		p.Windows = o.Windows
	}
	if o.changed("rounds") {
		p.Rounds = o.Rounds
	}
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
	if o.changed("connections") {
		p.Connections = o.Connections
	}
	if o.changed("pipelining") {
		p.Pipelining = o.Pipelining
	}
	if o.changed("workers") {
		p.Workers = o.Workers
	}
	if o.changed("threads") {
		p.Threads = o.Threads
	}
	if o.changed("scenario") {
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
	}
	if o.changed("cpus-server") {
		p.CPUsServer = o.CPUsServer
	}
	if o.changed("cpus-client") {
		p.CPUsClient = o.CPUsClient
	}
	if o.changed("counters") {
		p.Counters = o.Counters
		if p.Counters == "none" {
			p.Counters = ""
		}
	}
	if o.changed("cachegrind-n") {
		p.CachegrindN = o.CGN
	}
	if o.changed("cachegrind-reps") {
		p.CachegrindReps = o.CGReps
	}
	if o.changed("loadgen") {
		p.Loadgen = o.Loadgen
	}
	if o.changed("decide-on") {
		p.DecideOn = o.DecideOn
	}
	if o.changed("confidence") {
		p.Confidence = o.Confidence
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
	case strings.HasPrefix(name, "counter_delta."):
		c := strings.TrimPrefix(name, "counter_delta.")
		if c == "" {
			return fmt.Errorf("--threshold %q: counter name missing", s)
		}
		if p.Thresholds.CounterMaxDeltaPct == nil {
			p.Thresholds.CounterMaxDeltaPct = map[string]float64{}
		}
		p.Thresholds.CounterMaxDeltaPct[c] = f
	case name == "max_errors":
		if f < 0 || f != float64(int64(f)) {
			return fmt.Errorf("--threshold %q: max_errors must be a whole number ≥ 0", s)
		}
		p.Thresholds.MaxErrors = int64(f)
	case strings.HasPrefix(name, "counter."):
		c := strings.TrimPrefix(name, "counter.")
		if c == "" {
			return fmt.Errorf("--threshold %q: counter name missing", s)
		}
		if p.Thresholds.CounterMaxGrowthPct == nil {
			p.Thresholds.CounterMaxGrowthPct = map[string]float64{}
		}
		p.Thresholds.CounterMaxGrowthPct[c] = f
	default:
		return fmt.Errorf("--threshold %q: unknown threshold %q (known: min_median_delta_pct, max_p99_delta_pct, max_errors, counter.<name> (growth vs a baseline), counter_delta.<name> (A vs B))", s, name)
	}
	return nil
}
