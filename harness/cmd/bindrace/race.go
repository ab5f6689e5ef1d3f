package main

import (
	"context"
	"fmt"
	"io"

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
	sf := addSessionFlags(fs, "<a>-vs-<b>", "the race, recorded in its shape (a race draws nothing at random: its pairs alternate AB and BA)")
	unequal := fs.Bool("allow-unequal-threads", false, "race targets that serve with different (or unknown) thread counts; the headline says so")
	if code, done := parseNoArgs(fs, "race", raceUsage, args, stdout, stderr); done {
		return code
	}
	if err := lagTolerance(fs, *lag); err != nil {
		fmt.Fprintf(stderr, "bindrace race: %v\n", err)
		return 2
	}
	return runSession("race", fs, ov, sf, stdout, stderr, func(ctx context.Context, o race.Options) int {
		o.A, o.B, o.AllowUnequalThreads, o.LagTolerance = *a, *b, *unequal, *lag
		return race.Race(ctx, o).Exit
	})
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
	sf := addSessionFlags(fs, "matrix-<targets>", "the shuffled orders")
	if code, done := parseNoArgs(fs, "matrix", matrixUsage, args, stdout, stderr); done {
		return code
	}
	names := splitList(*list)
	if len(names) < 2 {
		fmt.Fprintln(stderr, "bindrace matrix: --targets needs at least two targets, e.g. --targets binding,uws,fasthttp")
		return 2
	}
	return runSession("matrix", fs, ov, sf, stdout, stderr, func(ctx context.Context, o race.Options) int {
		o.Targets = names
		return race.Matrix(ctx, o)
	})
}
