package main

import (
	"context"
	"fmt"
	"io"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/kinds"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

var raceUsage = fmt.Sprintf(`Usage: bindrace race --a TARGET --b TARGET [--profile NAME] [flags]

Races two targets in balanced AB/BA pairs, one fresh server process per run, applies the
profile's gate and writes results/<session>/ (summary.json, raw.json, manifest.json,
summary.md, summary.csv, report.html). The headline verdict is the last line on stdout.

Targets: %s;
reference (from $BINDRACE_REFERENCE); --targets-dir adds a folder of definitions. Flags given
here override the profile; a profile's value a scenario cannot take (windows for the database
scenarios) adapts, with a warning.

With --rate R (requests/s in all) or --rate-fraction F (of the LOWER of the two targets'
closed-loop maxima, measured first in this session at the same pipelining) each run is an open
loop offered that rate, and the gate judges the paired per-run p50 and p99 deltas instead of
throughput; generator-bound runs cannot support a verdict.

A profile with several scenarios or extra races writes one sub-session per race
(results/<session>/<name>/) plus index.json; the overall verdict is the worst one.

Exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 error or incomplete session (a target that
fails to start or to verify, dies mid-run, or SIGINT/SIGTERM: partial results are saved).`, targets.TargetHelp())

// raceCommand is `bindrace race`.
func raceCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("race", stderr)
	a := fs.String("a", "", "target A (the candidate)")
	b := fs.String("b", "", "target B (the reference)")
	addTargetFlags(fs)
	pf := addProfileFlags(fs, defaultProfile, false)
	lag := addRateFlags(fs, pf)
	sf := addSessionFlags(fs, "<a>-vs-<b>", "the race, recorded in its shape (a race draws nothing at random: its pairs alternate AB and BA)")
	unequal := fs.Bool("allow-unequal-threads", false, "race targets that serve with different (or unknown) thread counts; the headline says so")
	if code, done := parseNoArgs(fs, "race", raceUsage, args, stdout, stderr); done {
		return code
	}
	if err := checkRateFlags(fs, *lag); err != nil {
		return fail(stderr, "race", err)
	}
	return runSession("race", fs, pf, sf, stderr, func(ctx context.Context, o kinds.Options, out *sessionOutput) int {
		o.LagTolerance = *lag
		res, err := kinds.Race(ctx, kinds.RaceOptions{Options: o, A: *a, B: *b, AllowUnequalThreads: *unequal})
		out.done()
		if err != nil {
			return fail(stderr, "race", err)
		}
		set := res.Summary
		var record any = set.Summaries[0]
		if set.Index != nil {
			record = raceSetJSON{Index: *set.Index, Summaries: set.Summaries}
		}
		return finish("race", sf.json, record, func() { printRace(res, stdout, stderr) }, gate.ExitCode(set.Verdict), stdout, stderr, out.err(res.WriteErr))
	})
}

// printRace prints a race's result: the reasons, the resolving power and the warnings on
// stderr, and the headline last on stdout (a set: each race's headline, then the overall one).
func printRace(res kinds.Result[kinds.RaceSet], stdout, stderr io.Writer) {
	set := res.Summary
	if set.Index == nil {
		s := set.Summaries[0]
		for _, r := range s.Reasons {
			fmt.Fprintf(stderr, "  %s\n", r)
		}
		if r := s.Resolution; r != nil {
			fmt.Fprintf(stderr, "  resolving power: ±%.1f%% on %s (the interval's half-width over %d pairs); a regression beyond %.1f%% FAILs at the threshold\n",
				r.HalfWidthPct, r.Metric, s.Paired[r.Metric].N, r.DetectablePct)
		}
		printWarnings(stderr, s.Warnings)
		fmt.Fprintf(stderr, "results: %s\n", res.Dir)
		fmt.Fprintln(stdout, s.Headline)
		return
	}
	for i, s := range set.Summaries {
		fmt.Fprintf(stdout, "%s: %s\n", set.Index.Sessions[i].Name, s.Headline)
	}
	fmt.Fprintf(stderr, "results: %s\n", res.Dir)
	fmt.Fprintln(stdout, set.Index.Headline)
}

// raceSetJSON is what race --json prints for a race set: the index with every summary.
type raceSetJSON struct {
	session.Index
	Summaries []*session.Summary `json:"summaries"`
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
	addTargetFlags(fs)
	pf := addProfileFlags(fs, defaultProfile, true)
	sf := addSessionFlags(fs, "matrix-<targets>", "the shuffled orders")
	if code, done := parseNoArgs(fs, "matrix", matrixUsage, args, stdout, stderr); done {
		return code
	}
	names := splitList(*list)
	return runSession("matrix", fs, pf, sf, stderr, func(ctx context.Context, o kinds.Options, out *sessionOutput) int {
		res, err := kinds.Matrix(ctx, kinds.MatrixOptions{Options: o, Targets: names})
		out.done()
		if err != nil {
			return fail(stderr, "matrix", err)
		}
		return finish("matrix", sf.json, res.Summary, func() {
			printMatrix(res, stdout, stderr)
		}, 0, stdout, stderr, out.err(res.WriteErr), incomplete(res.Summary.Incomplete))
	})
}
