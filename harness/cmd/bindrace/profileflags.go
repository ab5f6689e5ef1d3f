package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/setting"
)

// profileFlags are the flags that override a profile (race, matrix, scale, sweep, noise,
// calibrate). A flag given keeps a setter that writes its value into the profile once the
// profile --profile names is loaded: the value goes from the command line into the profile,
// through nothing in between.
type profileFlags struct {
	name string                         // --profile
	set  []func(*profile.Profile) error // in the order the flags were given
	// last are the setters that go after every other: --sample, which would otherwise be undone
	// by a --counters given after it.
	last []func(*profile.Profile) error
}

// load loads the profile --profile names and writes the flags given over it. An error after
// the flags is worded with the flag when one was given for its setting, else with the
// profile's field.
func (pf *profileFlags) load(fs *pflag.FlagSet) (*profile.Profile, error) {
	if fs.Changed("pairs") && (fs.Changed("min-pairs") || fs.Changed("max-pairs") || fs.Changed("max-time")) {
		return nil, errors.New("--pairs sets a fixed design of that many pairs; --min-pairs, --max-pairs and --max-time a sequential one: give one kind")
	}
	p, err := profile.Load(pf.name, "")
	if err != nil {
		return nil, plainSetting{err} // the file's field, not a flag
	}
	for _, set := range append(pf.set[:len(pf.set):len(pf.set)], pf.last...) {
		if err := set(p); err != nil {
			return nil, err
		}
	}
	if err := p.Check(); err != nil {
		var se *setting.Error
		if errors.As(err, &se) && !givenFor(fs, se) {
			return nil, fmt.Errorf("profile %s: %w", p.Name, plainSetting{err})
		}
		return nil, err
	}
	return p, nil
}

// givenFor reports whether a flag was given for a setting se names.
func givenFor(fs *pflag.FlagSet, se *setting.Error) bool {
	given := givenSettings(fs)
	for _, s := range se.Settings() {
		if given[s] || given[strings.TrimSuffix(s, "s")] {
			return true
		}
	}
	return false
}

// plainSetting hides a setting error from flagWords: it names a profile file's field, not a
// flag.
type plainSetting struct{ err error }

func (p plainSetting) Error() string { return p.err.Error() }

// override is a flag whose value is written into the loaded profile: parse reads the text
// given, apply writes the value.
type override[T any] struct {
	pf    *profileFlags
	typ   string
	parse func(string) (T, error)
	apply func(*profile.Profile, T) error
	text  string
	last  bool // applied after the other flags (profileFlags.last)
}

func (o *override[T]) String() string { return o.text }
func (o *override[T]) Type() string   { return o.typ }

func (o *override[T]) Set(s string) error {
	v, err := o.parse(s)
	if err != nil {
		return err
	}
	o.text = s
	set := func(p *profile.Profile) error { return o.apply(p, v) }
	if o.last {
		o.pf.last = append(o.pf.last, set)
	} else {
		o.pf.set = append(o.pf.set, set)
	}
	return nil
}

// field registers a flag that sets *at(profile).
func field[T any](pf *profileFlags, fs *pflag.FlagSet, name, typ, usage string, parse func(string) (T, error), at func(*profile.Profile) *T) {
	fs.Var(&override[T]{pf: pf, typ: typ, parse: parse, apply: func(p *profile.Profile, v T) error {
		*at(p) = v
		return nil
	}}, name, usage)
}

// setter registers a flag that a profile setter (a profile.Setter method) applies.
func setter[T any](pf *profileFlags, fs *pflag.FlagSet, name, typ, usage string, parse func(string) (T, error), apply func(profile.Setter, T) error) {
	fs.Var(&override[T]{pf: pf, typ: typ, parse: parse, apply: viaSetter(apply)}, name, usage)
}

// viaSetter applies a profile.Setter method to a profile.
func viaSetter[T any](apply func(profile.Setter, T) error) func(*profile.Profile, T) error {
	return func(p *profile.Profile, v T) error { return apply(p.Set(), v) }
}

func parseInt(s string) (int, error)       { return strconv.Atoi(s) }
func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
func parseString(s string) (string, error) { return s, nil }
func parseDuration(s string) (profile.Duration, error) {
	d, err := time.ParseDuration(s)
	return profile.Duration(d), err
}

// addProfileFlags registers the flags that override a profile on fs (race, matrix, noise,
// calibrate). defProfile is the profile used when --profile is not given.
func addProfileFlags(fs *pflag.FlagSet, defProfile string, matrix bool) *profileFlags {
	pf := &profileFlags{}
	fs.StringVar(&pf.name, "profile", defProfile, "profile name (profiles/<name>.json) or path to a profile file")
	if matrix {
		field(pf, fs, "rounds", "int", "rounds; each round runs every target once in a shuffled order (default from the profile)", parseInt, func(p *profile.Profile) *int { return &p.Rounds })
	} else {
		setter(pf, fs, "pairs", "int", "a fixed design of this many AB/BA pairs (rounded up to even), whatever the profile plans", parseInt, profile.Setter.Pairs)
		setter(pf, fs, "min-pairs", "int", "sequential design: the first look, in pairs (default from the profile, else 6)", parseInt, profile.Setter.MinPairs)
		setter(pf, fs, "max-pairs", "int", "sequential design: the last look; pairs run until every check is decided or this many (default from the profile, else 30)", parseInt, profile.Setter.MaxPairs)
		setter(pf, fs, "max-time", "duration", "sequential design: wall-clock budget of the whole session, e.g. 5m (default from the profile; 0 = none)", parseDuration, profile.Setter.MaxTime)
		field(pf, fs, "windows", "int", "measured windows per run: 1 = a fresh process per run; more = both servers of a pair live, windows interleaved A B B A (default from the profile; a scenario that writes to the database, create-order, takes 1)", parseInt, func(p *profile.Profile) *int { return &p.Windows })
	}
	pf.addMethodFlags(fs)
	field(pf, fs, "connections", "int", "client connections", parseInt, func(p *profile.Profile) *int { return &p.Connections })
	field(pf, fs, "pipelining", "int", "requests in flight per connection", parseInt, func(p *profile.Profile) *int { return &p.Pipelining })
	setter(pf, fs, "scenario", "string", "scenario(s), comma-separated: "+strings.Join(append(scenario.Names(), scenario.DBNames()...), ", ")+" (the database ones start PostgreSQL; replaces the profile's scenarios and extra races)", parseString, profile.Setter.Scenarios)
	setter(pf, fs, "threshold", "stringArray", "gate threshold: a number sets min_median_delta_pct (e.g. -3); or name=value for min_median_delta_pct, max_p99_delta_pct, max_errors, counter_delta.<name> (max % A over B, deterministic counts), counter.<name> (max % growth over a baseline), syscall_max_delta_pct and syscall_max_growth_pct (paced system calls per response), live_syscall_max_delta_pct (system calls per response under the live load, paired); repeatable", parseString, profile.Setter.Threshold)
	field(pf, fs, "counters", "string", `per-response counters: "perf", "cachegrind" (deterministic, gated A vs B), "syscalls" (the server's system calls in every window of the live load, compared pair by pair), several joined by commas ("perf,cachegrind"), or "none" (default from the profile)`, parseString, func(p *profile.Profile) *string { return &p.Counters })
	fs.Var(&override[bool]{pf: pf, typ: "bool", parse: strconv.ParseBool, apply: viaSetter(profile.Setter.Sample), last: true}, "sample",
		`also sample each server's threads during its windows with perf record -e cpu-clock -g (on the client's CPUs; no PMU needed): where its CPU time went per response, by function, user and kernel, by system call; adds "sample" to --counters, wherever --counters stands`)
	fs.Lookup("sample").NoOptDefVal = "true"
	field(pf, fs, "cachegrind-n", "int", "requests of the first cachegrind run per repetition; the second sends 2N (default from the profile)", parseInt, func(p *profile.Profile) *int { return &p.CachegrindN })
	field(pf, fs, "cachegrind-reps", "int", "at most this many cachegrind N/2N measurements per side: two that agree within the measurement's resolution, else a third, and the median is gated (default from the profile)", parseInt, func(p *profile.Profile) *int { return &p.CachegrindReps })
	field(pf, fs, "decide-on", "string", `throughput figure the verdict rests on: "rps" or "rps_per_cpu_second" (default from the profile)`, parseString, func(p *profile.Profile) *string { return &p.DecideOn })
	field(pf, fs, "confidence", "float", "family confidence of the gate: an A/A race FAILs at most 1-confidence of the time over all checks (default from the profile, 0.95)", parseFloat, func(p *profile.Profile) *float64 { return &p.Confidence })
	return pf
}

// addMethodFlags registers the flags of the profile's Method: how every run is measured.
func (pf *profileFlags) addMethodFlags(fs *pflag.FlagSet) {
	dur := func(name, usage string, at func(*profile.Profile) *profile.Duration) {
		field(pf, fs, name, "duration", usage, parseDuration, at)
	}
	dur("duration", "measured window of each run, e.g. 10s", func(p *profile.Profile) *profile.Duration { return &p.Duration })
	dur("warmup", "warm-up before each measured window (excluded from every figure)", func(p *profile.Profile) *profile.Duration { return &p.Warmup })
	dur("settle", "pause between warm-up and the measured window", func(p *profile.Profile) *profile.Duration { return &p.Settle })
	dur("cooldown", "pause between runs", func(p *profile.Profile) *profile.Duration { return &p.Cooldown })
	field(pf, fs, "workers", "int", "client workers (capped to the client's CPUs)", parseInt, func(p *profile.Profile) *int { return &p.Workers })
	field(pf, fs, "threads", "int", "server threads (0 = one per server CPU)", parseInt, func(p *profile.Profile) *int { return &p.Threads })
	field(pf, fs, "cpus-server", "string", "CPUs for the server (taskset list, e.g. 1 or 2-3)", parseString, func(p *profile.Profile) *string { return &p.CPUsServer })
	field(pf, fs, "cpus-client", "string", "CPUs for the load generator (taskset list)", parseString, func(p *profile.Profile) *string { return &p.CPUsClient })
	dur("busy-sample", "how long the machine's idle and steal time are read before each run (default from the profile, 1s; 0 skips it)", func(p *profile.Profile) *profile.Duration { return &p.BusySample })
	field(pf, fs, "steal-limit", "float", "set aside, and measure again, a round of windows either of which lost more than this % of the CPUs' time to the hypervisor (default from the profile, 2; -1 sets nothing aside)", parseFloat, func(p *profile.Profile) *float64 { return &p.StealLimitPct })
	field(pf, fs, "loadgen", "string", `load generator: "builtin" or "wrk" (HTTP scenarios; whole seconds) (default from the profile)`, parseString, func(p *profile.Profile) *string { return &p.Loadgen })
}
