package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/race"
)

const raceUsage = `Usage: bindrace race --a TARGET --b TARGET [--profile NAME] [flags]

Races two targets in balanced AB/BA pairs, one fresh server process per run, applies the
profile's gate and writes results/<session>/ (summary.json, raw.json, manifest.json,
summary.md, summary.csv, report.html). The headline verdict is the last line on stdout.

Targets: binding, binding-plain, binding-static, uws, fasthttp, nethttp, cmd:<command with {port}>,
reference (from $BINDRACE_REFERENCE). Flags given here override the profile.

With --rate R (requests/s in all) or --rate-fraction F (of the LOWER of the two targets'
closed-loop maxima, measured first in this session at the same pipelining) each run is an open
loop offered that rate, and the gate judges the paired per-run p50 and p99 deltas instead of
throughput; generator-bound runs cannot support a verdict.

A profile with several scenarios or extra races writes one sub-session per race
(results/<session>/<name>/) plus index.json; the overall verdict is the worst one.

Exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 error or incomplete session (a target that
fails to start or to verify, dies mid-run, or SIGINT/SIGTERM: partial results are saved).`

// raceCommand is `bindrace race`.
func raceCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("race", stderr)
	a := fs.String("a", "", "target A (the candidate)")
	b := fs.String("b", "", "target B (the reference)")
	ov := addProfileFlags(fs, defaultProfile, false)
	lag := addRateFlags(fs, ov)
	out := fs.String("out", "", "session directory (default results/<timestamp>-<a>-vs-<b>)")
	seed := fs.Int64("seed", 0, "seed of the bootstrap resampling (default time-based; recorded)")
	asJSON := fs.Bool("json", false, "print summary.json on stdout and nothing else (progress goes to stderr)")
	slog := fs.String("server-log", "", `copy the servers' output to this file ("-" = stderr)`)
	unequal := fs.Bool("allow-unequal-threads", false, "race targets that serve with different (or unknown) thread counts; the headline says so")
	dbo := addDBFlags(fs)
	hosts := addHostFlags(fs)
	if code, done := parseNoArgs(fs, "race", raceUsage, args, stdout, stderr); done {
		return code
	}
	if err := lagTolerance(fs, *lag); err != nil {
		fmt.Fprintf(stderr, "bindrace race: %v\n", err)
		return 2
	}
	ss, ok := prepareSession("race", fs, ov, *slog, dbo, hosts, stderr)
	if !ok {
		return 2
	}
	defer ss.done()
	res := race.Race(ss.ctx, race.Options{
		A: *a, B: *b, Profile: ss.profile, Seed: *seed, SeedSet: fs.Changed("seed"), Out: *out, JSON: *asJSON,
		AllowUnequalThreads: *unequal, LagTolerance: *lag, Command: os.Args, Stdout: stdout, Stderr: stderr, ServerLog: ss.log,
		DB: *dbo, Fleet: ss.fleet,
	})
	return closeFleet(ss.fleet, res.Exit, stderr, "race")
}

const matrixUsage = `Usage: bindrace matrix --targets T1,T2,... [--rounds R] [--seed S] [--profile NAME] [flags]

Runs every target once per round, each round in an order shuffled from the seed (PCG; the seed
defaults to a time-based one and is recorded), with a cooldown between runs. Reports per-target
statistics and the correlation of normalized throughput with slot (position bias).

Exit status: 0 done, 2 error or incomplete session.`

// matrixCommand is `bindrace matrix`.
func matrixCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("matrix", stderr)
	list := fs.String("targets", "", "comma-separated targets")
	ov := addProfileFlags(fs, defaultProfile, true)
	out := fs.String("out", "", "session directory (default results/<timestamp>-matrix-<targets>)")
	seed := fs.Int64("seed", 0, "seed of the shuffled orders (default time-based; recorded)")
	asJSON := fs.Bool("json", false, "print summary.json on stdout and nothing else")
	slog := fs.String("server-log", "", `copy the servers' output to this file ("-" = stderr)`)
	dbo := addDBFlags(fs)
	hosts := addHostFlags(fs)
	if code, done := parseNoArgs(fs, "matrix", matrixUsage, args, stdout, stderr); done {
		return code
	}
	var names []string
	for _, t := range strings.Split(*list, ",") {
		if t = strings.TrimSpace(t); t != "" {
			names = append(names, t)
		}
	}
	if len(names) < 2 {
		fmt.Fprintln(stderr, "bindrace matrix: --targets needs at least two targets, e.g. --targets binding,uws,fasthttp")
		return 2
	}
	ss, ok := prepareSession("matrix", fs, ov, *slog, dbo, hosts, stderr)
	if !ok {
		return 2
	}
	defer ss.done()
	code := race.Matrix(ss.ctx, race.Options{
		Targets: names, Profile: ss.profile, Seed: *seed, SeedSet: fs.Changed("seed"), Out: *out, JSON: *asJSON,
		Command: os.Args, Stdout: stdout, Stderr: stderr, ServerLog: ss.log, DB: *dbo, Fleet: ss.fleet,
	})
	return closeFleet(ss.fleet, code, stderr, "matrix")
}

// preparedSession is what race and matrix run with once their flags are checked.
type preparedSession struct {
	ctx     context.Context
	profile *profile.Profile
	log     io.Writer // the server log, nil without --server-log
	fleet   *fleet.Fleet
	done    func()
}

// prepareSession is prepare for a race or a matrix: it first checks the database flags and
// opens the hosts, and gives the database the server log. ok false: the error is printed and
// the hosts closed, exit 2; else the caller defers done and closes the fleet (closeFleet).
func prepareSession(cmd string, fs *pflag.FlagSet, ov *profile.Overrides, serverLog string, dbo *race.DBOptions,
	hosts *hostFlags, stderr io.Writer) (preparedSession, bool) {
	if err := dbo.Check(); err != nil {
		fmt.Fprintf(stderr, "bindrace %s: %v\n", cmd, err)
		return preparedSession{}, false
	}
	fl, err := hosts.open(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bindrace %s: %v\n", cmd, err)
		return preparedSession{}, false
	}
	ctx, p, logw, done, ok := prepare(cmd, fs, ov, serverLog, stderr)
	if !ok {
		closeFleet(fl, 2, stderr, cmd)
		return preparedSession{}, false
	}
	dbo.Log = logw
	return preparedSession{ctx: ctx, profile: p, log: logw, fleet: fl, done: done}, true
}
