package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/kinds"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
)

const calibrateUsage = `Usage: bindrace calibrate --target T [--profile NAME] [--slowdowns 0,5] [--races 3] [flags]

Measures what the gate can catch on this machine: races T with its CPU time capped at
100-S% (T@cpuNN, through the cpu cgroup's quota: a known slowdown of the same code) against T,
--races times for each slowdown S (0: T against itself), under the profile, and writes
calibration.json with every verdict and the detection rate per slowdown. Needs root for the
cgroup. Flags given here override the profile, as for race.

Exit status: 0 done, 2 error (a race that could not finish; what was measured is saved).`

// calibrateCommand is `bindrace calibrate`.
func calibrateCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("calibrate", stderr)
	target := fs.String("target", "binding", "target to calibrate")
	addTargetFlags(fs)
	pf := addProfileFlags(fs, "release-linux", false)
	slowdowns := fs.IntSlice("slowdowns", []int{0, 5}, "slowdowns in percent of CPU time (0 = the target against itself)")
	races := fs.Int("races", 3, "races per slowdown")
	outs := outputs{}
	fs.StringVar(&outs.out, "out", "", "directory for calibration.json and the races (default results/<timestamp>-calibrate-<target>)")
	fs.BoolVar(&outs.force, "force", false, "write into an --out folder that holds files already (replacing a calibration there)")
	if code, done := parseNoArgs(fs, "calibrate", calibrateUsage, args, stdout, stderr); done {
		return code
	}
	for _, s := range *slowdowns {
		if s < 0 || s >= 100 {
			fmt.Fprintf(stderr, "bindrace calibrate: bad flag value --slowdowns: %d is not a percentage in [0, 100)\n", s)
			return 2
		}
	}
	if *races < 1 {
		fmt.Fprintln(stderr, "bindrace calibrate: --races must be at least 1")
		return 2
	}
	ctx, p, _, done, ok := prepare("calibrate", fs, pf, outs, stderr)
	if !ok {
		return 2
	}
	defer done()
	dir := outs.out
	if dir == "" {
		dir = filepath.Join(kinds.ResultsDir(), session.Name(time.Now(), "calibrate", *target))
	}
	so := newSessionOutput(stderr)
	res, err := kinds.Calibrate(ctx, kinds.CalibrateOptions{Target: *target, Profile: p, Slowdowns: *slowdowns, Races: *races,
		Out: dir, Force: outs.force, Command: os.Args, Events: so.event})
	so.done()
	if res.Summary == nil {
		return fail(stderr, "calibrate", err)
	}
	return finish("calibrate", false, res.Summary, func() { printCalibration(res.Summary, dir, stdout) }, 0, stdout, stderr, res.WriteErr, err)
}

// printCalibration prints each slowdown's verdicts and median deltas, and where the file is.
func printCalibration(cal *kinds.Calibration, dir string, stdout io.Writer) {
	fmt.Fprintf(stdout, "%-10s %-22s %-40s %s\n", "slowdown", "candidate", "verdicts", "median deltas")
	for _, r := range cal.Rows {
		var ds []string
		for _, d := range r.MedianDeltas {
			ds = append(ds, fmt.Sprintf("%+.1f%%", d))
		}
		fmt.Fprintf(stdout, "%-10s %-22s %-40s %s\n", fmt.Sprintf("%d%%", r.SlowdownPct), r.Candidate,
			strings.Join(r.Verdicts, " "), strings.Join(ds, " "))
	}
	fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(dir, session.CalibrationFile))
}

const noiseUsage = `Usage: bindrace noise --target T [--profile NAME] [--processes 6] [--windows 6] [--duration 3s] [flags]

Takes run-to-run variance apart: --processes fresh servers of T, each measured in --windows
back-to-back windows of --duration (fresh connections each; default the profile's), each window
in 1 s slices, with the race's shape from the profile. Prints the spread at each level (slices within a window, windows
within a process, processes) with each level's share of a single window's variance, and writes
noise.json (every window: throughput, slices, server CPU, responses per CPU-second, what the
client saw of the server's batching, the server's own counters). --setarch-r runs the server with
ASLR off, --loadgen wrk drives it with wrk.

Exit status: 0 done, 2 error.`

// noiseCommand is `bindrace noise`.
func noiseCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("noise", stderr)
	target := fs.String("target", "binding", "target to measure")
	addTargetFlags(fs)
	pf := addProfileFlags(fs, "release-linux", false)
	procs := fs.Int("processes", 6, "fresh server processes")
	noASLR := fs.Bool("setarch-r", false, "run the server under setarch -R (address-space layout randomisation off)")
	outs := outputs{}
	fs.StringVar(&outs.out, "out", "", "directory for noise.json (default results/<timestamp>-noise-<target>)")
	asJSON := fs.Bool("json", false, "print noise.json on stdout instead of the table")
	fs.StringVar(&outs.serverLog, "server-log", "", `copy the servers' output to this file ("-" = stderr)`)
	fs.BoolVar(&outs.force, "force", false, "write into an --out folder that holds files already (replacing a noise study there) and over an existing --server-log file")
	if code, done := parseNoArgs(fs, "noise", noiseUsage, args, stdout, stderr); done {
		return code
	}
	ctx, p, logw, done, ok := prepare("noise", fs, pf, outs, stderr)
	if !ok {
		return 2
	}
	defer done()
	var wrap []string
	if *noASLR {
		wrap = []string{"setarch", "-R"}
	}
	dir := outs.out
	if dir == "" {
		dir = filepath.Join(kinds.ResultsDir(), session.Name(time.Now(), "noise", *target))
	}
	no := kinds.NoiseOptions{Target: *target, Profile: p, Processes: *procs, Wrap: wrap, Out: dir, Force: outs.force, ServerLog: logw}
	if err := no.Check(); err != nil {
		return fail(stderr, "noise", err)
	}
	so := newSessionOutput(stderr)
	no.Events = so.event
	res, err := kinds.MeasureNoise(ctx, no)
	so.done()
	if res.Summary == nil {
		return fail(stderr, "noise", err)
	}
	return finish("noise", *asJSON, res.Summary, func() { printNoise(res, *procs, p, stdout) }, 0, stdout, stderr, res.WriteErr, err)
}

// printNoise prints each level's spread and share of a window's variance, and where the file is.
func printNoise(res kinds.Result[kinds.Noise], procs int, p *profile.Profile, stdout io.Writer) {
	n := res.Summary
	fmt.Fprintf(stdout, "%s, %s, %d connections × pipelining %d, %s load generator, %d processes × %d windows of %s\n\n",
		n.Target, n.Scenario, n.Shape.Connections, n.Shape.Pipelining, n.Loadgen, procs, p.Windows, p.Duration.D())
	fmt.Fprintf(stdout, "%-36s %8s %14s %6s %14s\n", "level", "CV", "per CPU-s CV", "n", "share of var.")
	for _, l := range n.Levels {
		share := "—"
		if l.SharePct > 0 || l.Level == "windows within a process" {
			share = fmt.Sprintf("%.0f%%", l.SharePct)
		}
		perCPU := "—"
		if l.PerCPUCV > 0 {
			perCPU = fmt.Sprintf("%.2f%%", l.PerCPUCV)
		}
		fmt.Fprintf(stdout, "%-36s %7.2f%% %14s %6d %14s\n", l.Level, l.CVPct, perCPU, l.N, share)
	}
	fmt.Fprintf(stdout, "\nwrote %s\n", filepath.Join(res.Dir, session.NoiseFile))
}
