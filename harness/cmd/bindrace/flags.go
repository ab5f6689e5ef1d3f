package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/internal/interrupt"
	"github.com/bindrace/bindrace/harness/kinds"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/targets"
)

// defaultProfile is the profile race and matrix use without --profile.
const defaultProfile = "quick"

// newFlagSet makes a flag set whose errors the command reports itself.
func newFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.Usage = func() {}
	return fs
}

// parse parses args; it returns (exit, done): done with exit 0 after --help, 2 on a bad flag.
func parse(fs *pflag.FlagSet, cmd, usage string, args []string, stdout, stderr io.Writer) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(stdout, "%s\n\nFlags:\n%s", usage, fs.FlagUsages())
			return 0, true
		}
		fmt.Fprintf(stderr, "bindrace %s: %v\nRun 'bindrace %s --help' for usage.\n", cmd, err, cmd)
		return 2, true
	}
	return 0, false
}

// parseNoArgs is parse for a command that takes flags only: an argument is an error (exit 2).
func parseNoArgs(fs *pflag.FlagSet, cmd, usage string, args []string, stdout, stderr io.Writer) (int, bool) {
	if code, done := parse(fs, cmd, usage, args, stdout, stderr); done {
		return code, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bindrace %s: unexpected argument %q\nRun 'bindrace %s --help' for usage.\n", cmd, fs.Arg(0), cmd)
		return 2, true
	}
	return 0, false
}

// applyProfileFlags writes the profile flags given on the command line over p.
func applyProfileFlags(fs *pflag.FlagSet, o *profile.Overrides, p *profile.Profile) error {
	o.Set = map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { o.Set[f.Name] = true })
	return o.Apply(p)
}

// loadProfile loads the profile --profile names, with the flags given over it.
func loadProfile(fs *pflag.FlagSet, o *profile.Overrides) (*profile.Profile, error) {
	p, err := profile.Load(o.Profile, "")
	if err != nil {
		return nil, err
	}
	if err := applyProfileFlags(fs, o, p); err != nil {
		return nil, err
	}
	return p, nil
}

func openServerLog(path string, stderr io.Writer) (io.Writer, func(), error) {
	switch path {
	case "":
		return nil, func() {}, nil
	case "-":
		return stderr, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--server-log: %w", err)
	}
	return f, func() { f.Close() }, nil
}

// prepare sets a race, matrix, noise or calibrate command up once its arguments are checked:
// it loads the profile and opens the server log, and returns them with a context that SIGINT
// and SIGTERM cancel (a second signal stops every server at once and exits 2) and done, which
// stops every server still running, the signal handling and the log, in that order. ok false:
// the error is printed, exit 2.
func prepare(cmd string, fs *pflag.FlagSet, ov *profile.Overrides, serverLog string, stderr io.Writer) (ctx context.Context, p *profile.Profile,
	logw io.Writer, done func(), ok bool) {
	p, err := loadProfile(fs, ov)
	if err != nil {
		fail(stderr, cmd, err)
		return nil, nil, nil, nil, false
	}
	logw, closeLog, err := openServerLog(serverLog, stderr)
	if err != nil {
		fail(stderr, cmd, err)
		return nil, nil, nil, nil, false
	}
	ctx, stop := interrupt.Context(interrupt.Commands, interrupt.Handlers{
		First: func(name string) {
			fmt.Fprintf(stderr, "\nbindrace: %s: stopping servers and saving what was measured (again to quit at once)\n", name)
		},
		Again: func() {
			targets.StopAll()
			fmt.Fprintln(stderr, "bindrace: second signal: servers stopped, exiting")
			os.Exit(2)
		},
	})
	return ctx, p, logw, func() {
		targets.StopAll()
		stop()
		closeLog()
	}, true
}

// addProfileFlags registers the flags that override a profile on fs (race, matrix, noise,
// calibrate). defProfile is the profile used when --profile is not given.
func addProfileFlags(fs *pflag.FlagSet, defProfile string, matrix bool) *profile.Overrides {
	o := &profile.Overrides{}
	fs.StringVar(&o.Profile, "profile", defProfile, "profile name (profiles/<name>.json) or path to a profile file")
	if matrix {
		fs.IntVar(&o.Rounds, "rounds", 0, "rounds; each round runs every target once in a shuffled order (default from the profile)")
	} else {
		fs.IntVar(&o.Pairs, "pairs", 0, "a fixed design of this many AB/BA pairs (rounded up to even), whatever the profile plans")
		fs.IntVar(&o.MinPairs, "min-pairs", 0, "sequential design: the first look, in pairs (default from the profile, else 6)")
		fs.IntVar(&o.MaxPairs, "max-pairs", 0, "sequential design: the last look; pairs run until every check is decided or this many (default from the profile, else 30)")
		fs.DurationVar(&o.MaxTime, "max-time", 0, "sequential design: wall-clock budget of the whole session, e.g. 5m (default from the profile; 0 = none)")
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
	fs.StringVar(&o.Scenario, "scenario", "", "scenario(s), comma-separated: "+strings.Join(append(scenario.Names(), scenario.DBNames()...), ", ")+" (the database ones start PostgreSQL; replaces the profile's scenarios and extra races)")
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

// outputFlags say where a session's files go and what it prints: every session command
// (race, matrix, scale, sweep) takes them.
type outputFlags struct {
	out, serverLog string
	json           bool
}

// register adds the output flags to fs; outName is the session directory's default name after
// the timestamp.
func (f *outputFlags) register(fs *pflag.FlagSet, outName string) {
	fs.StringVar(&f.out, "out", "", "session directory (default results/<timestamp>-"+outName+")")
	fs.BoolVar(&f.json, "json", false, "print summary.json on stdout and nothing else (progress goes to stderr)")
	fs.StringVar(&f.serverLog, "server-log", "", `copy the servers' output to this file ("-" = stderr)`)
}

// options are the session options every session command fills from its output flags, with
// the output their events go to.
func (f *outputFlags) options(fs *pflag.FlagSet, p *profile.Profile, serverLog, stderr io.Writer) (kinds.Options, *sessionOutput) {
	out := newSessionOutput(stderr)
	return kinds.Options{Profile: p, Given: givenSettings(fs), Out: f.out, Command: os.Args, ServerLog: serverLog, Events: out.event}, out
}

// sessionFlags are what race and matrix take beyond the output flags: the seed, and the
// database and hosts the session runs on.
type sessionFlags struct {
	outputFlags
	seed  int64
	db    *measure.DBOptions
	hosts *hostFlags
}

// addSessionFlags registers the session flags; seeds says what the seed draws.
func addSessionFlags(fs *pflag.FlagSet, outName, seeds string) *sessionFlags {
	f := &sessionFlags{}
	f.register(fs, outName)
	fs.Int64Var(&f.seed, "seed", 0, "seed of "+seeds+" (default time-based; recorded)")
	f.db = addDBFlags(fs)
	f.hosts = addHostFlags(fs)
	return f
}

// runSession runs a race or a matrix once its own flags are checked: it checks the database
// flags, opens the hosts, loads the profile and gives the database the server log, then calls
// run with the options the session flags fill (run adds the command's own) and closes the
// hosts. It returns the exit status, 2 when the set-up failed (the error printed).
func runSession(cmd string, fs *pflag.FlagSet, ov *profile.Overrides, sf *sessionFlags, stderr io.Writer,
	run func(context.Context, kinds.Options, *sessionOutput) int) int {
	if err := sf.db.Check(); err != nil {
		return fail(stderr, cmd, err)
	}
	fl, err := sf.hosts.open(stderr)
	if err != nil {
		return fail(stderr, cmd, err)
	}
	ctx, p, logw, done, ok := prepare(cmd, fs, ov, sf.serverLog, stderr)
	if !ok {
		return closeFleet(fl, 2, stderr, cmd)
	}
	defer done()
	sf.db.Log = logw
	o, out := sf.options(fs, p, logw, stderr)
	o.Seed, o.SeedSet, o.DB, o.Fleet = sf.seed, fs.Changed("seed"), *sf.db, fl
	return closeFleet(fl, run(ctx, o, out), stderr, cmd)
}

// fail prints a command's error, its settings worded as the flags that set them; exit 2.
func fail(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "bindrace %s: %s\n", cmd, flagWords(err))
	return 2
}

// flagWords is err's text with the setting it names (setting.Error) written as its flag.
func flagWords(err error) string { return setting.Words(err, flagOf) }

// flagOf is the flag that sets a setting: "db_scale" is --db-scale; a few flags are named for
// one value of a list setting.
func flagOf(name string) string {
	switch name {
	case "thresholds":
		return "--threshold"
	case "scenarios":
		return "--scenario"
	}
	return "--" + strings.ReplaceAll(name, "_", "-")
}

// givenSettings are the settings the flags given set (by setting name): the defaults the user
// did not choose, which a session may adapt.
func givenSettings(fs *pflag.FlagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { given[strings.ReplaceAll(f.Name, "-", "_")] = true })
	return given
}
