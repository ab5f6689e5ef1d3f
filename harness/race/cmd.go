package race

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/report"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// DefaultProfile is the profile race and matrix use without --profile.
const DefaultProfile = "quick"

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

// SignalContext is cancelled on SIGINT or SIGTERM with the cause "interrupted by SIGINT"; a
// second signal stops every server at once and exits 2.
func SignalContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			name := unix.SignalName(sig.(syscall.Signal))
			fmt.Fprintf(stderr, "\nbindrace: %s: stopping servers and saving what was measured (again to quit at once)\n", name)
			cancel(fmt.Errorf("interrupted by %s", name))
		case <-done:
			return
		}
		select {
		case <-ch:
			targets.StopAll()
			fmt.Fprintln(stderr, "bindrace: second signal: servers stopped, exiting")
			os.Exit(2)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

func loadProfile(o *profile.Overrides) (*profile.Profile, error) {
	p, err := profile.Load(o.Profile, "")
	if err != nil {
		return nil, err
	}
	if err := o.Apply(p); err != nil {
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

// prepare sets a race or matrix command up once its arguments are checked: it loads the
// profile and opens the server log, and returns them with a context that SIGINT and SIGTERM
// cancel and done, which stops every server still running, the signal handling and the log,
// in that order. ok false: the error is printed, exit 2.
func prepare(cmd string, ov *profile.Overrides, serverLog string, stderr io.Writer) (ctx context.Context, p *profile.Profile,
	logw io.Writer, done func(), ok bool) {
	p, err := loadProfile(ov)
	if err != nil {
		fmt.Fprintf(stderr, "bindrace %s: %v\n", cmd, err)
		return nil, nil, nil, nil, false
	}
	logw, closeLog, err := openServerLog(serverLog, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "bindrace %s: %v\n", cmd, err)
		return nil, nil, nil, nil, false
	}
	ctx, stop := SignalContext(stderr)
	return ctx, p, logw, func() {
		targets.StopAll()
		stop()
		closeLog()
	}, true
}

const raceUsage = `Usage: bindrace race --a TARGET --b TARGET [--profile NAME] [flags]

Races two targets in balanced AB/BA pairs, one fresh server process per run, applies the
profile's gate and writes results/<session>/ (summary.json, raw.json, manifest.json,
summary.md, summary.csv, report.html). The headline verdict is the last line on stdout.

Targets: binding, binding-plain, binding-static, uws, fasthttp, nethttp, cmd:<command with {port}>,
reference (from $BINDRACE_REFERENCE). Flags given here override the profile.

A profile with several scenarios or extra races writes one sub-session per race
(results/<session>/<name>/) plus index.json; the overall verdict is the worst one.

Exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 error or incomplete session (a target that
fails to start or to verify, dies mid-run, or SIGINT/SIGTERM: partial results are saved).`

// RaceCommand is `bindrace race`.
func RaceCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("race", stderr)
	a := fs.String("a", "", "target A (the candidate)")
	b := fs.String("b", "", "target B (the reference)")
	ov := profile.AddFlags(fs, DefaultProfile, false)
	out := fs.String("out", "", "session directory (default results/<timestamp>-<a>-vs-<b>)")
	seed := fs.Int64("seed", 0, "seed of the bootstrap resampling (default time-based; recorded)")
	asJSON := fs.Bool("json", false, "print summary.json on stdout and nothing else (progress goes to stderr)")
	slog := fs.String("server-log", "", `copy the servers' output to this file ("-" = stderr)`)
	unequal := fs.Bool("allow-unequal-threads", false, "race targets that serve with different (or unknown) thread counts; the headline says so")
	if code, done := parseNoArgs(fs, "race", raceUsage, args, stdout, stderr); done {
		return code
	}
	ctx, p, logw, done, ok := prepare("race", ov, *slog, stderr)
	if !ok {
		return 2
	}
	defer done()
	res := Race(ctx, Options{
		A: *a, B: *b, Profile: p, Seed: *seed, SeedSet: fs.Changed("seed"), Out: *out, JSON: *asJSON,
		AllowUnequalThreads: *unequal, Command: os.Args, Stdout: stdout, Stderr: stderr, ServerLog: logw,
	})
	return res.Exit
}

const matrixUsage = `Usage: bindrace matrix --targets T1,T2,... [--rounds R] [--seed S] [--profile NAME] [flags]

Runs every target once per round, each round in an order shuffled from the seed (PCG; the seed
defaults to a time-based one and is recorded), with a cooldown between runs. Reports per-target
statistics and the correlation of normalized throughput with slot (position bias).

Exit status: 0 done, 2 error or incomplete session.`

// MatrixCommand is `bindrace matrix`.
func MatrixCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("matrix", stderr)
	list := fs.String("targets", "", "comma-separated targets")
	ov := profile.AddFlags(fs, DefaultProfile, true)
	out := fs.String("out", "", "session directory (default results/<timestamp>-matrix-<targets>)")
	seed := fs.Int64("seed", 0, "seed of the shuffled orders (default time-based; recorded)")
	asJSON := fs.Bool("json", false, "print summary.json on stdout and nothing else")
	slog := fs.String("server-log", "", `copy the servers' output to this file ("-" = stderr)`)
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
	ctx, p, logw, done, ok := prepare("matrix", ov, *slog, stderr)
	if !ok {
		return 2
	}
	defer done()
	return Matrix(ctx, Options{
		Targets: names, Profile: p, Seed: *seed, SeedSet: fs.Changed("seed"), Out: *out, JSON: *asJSON,
		Command: os.Args, Stdout: stdout, Stderr: stderr, ServerLog: logw,
	})
}

const gateUsage = `Usage: bindrace gate DIR [--baseline FILE|DIR] [--threshold ...]

Re-applies the gate to a saved race session (or each sub-session of a multi-race session) and
prints the reasons and the headline. Thresholds are those stored in the session unless
--threshold overrides them.

With --baseline (a file written by 'bindrace baseline write', e.g. baselines/ci.json, or a saved
session directory), the candidate's deterministic counts (cachegrind instructions per response)
must not grow by more than counter_max_growth_pct (default +1%) over the baseline's. A baseline
of another target, build kind, PGO profile, counters mode, scenario, connections or pipelining
is refused (exit 2, naming what differs). Throughput is only noted beside the baseline's: it is
always judged by the ratios measured inside DIR, never by a figure carried from another session.

Exit status: 0 PASS, 1 FAIL, 3 INCONCLUSIVE, 2 error or incomplete session.`

// GateCommand is `bindrace gate`.
func GateCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("gate", stderr)
	baseline := fs.String("baseline", "", "baseline file (bindrace baseline write) or a saved session directory")
	var ths []string
	fs.StringArrayVar(&ths, "threshold", nil, "override a threshold (as for race): a number = min_median_delta_pct, or name=value")
	asJSON := fs.Bool("json", false, "print the re-gated summary.json on stdout")
	if code, done := parse(fs, "gate", gateUsage, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "bindrace gate: give exactly one session directory\nRun 'bindrace gate --help' for usage.")
		return 2
	}
	dir := fs.Arg(0)
	fail := func(err error) int {
		fmt.Fprintf(stderr, "bindrace gate: %v\n", err)
		return 2
	}
	kind, err := session.Kind(dir)
	if err != nil {
		return fail(err)
	}
	type sub struct{ name, dir string }
	var subs []sub
	switch kind {
	case "race":
		subs = []sub{{"", session.DirOf(dir)}}
	case "race-set":
		ix, err := session.LoadIndex(dir)
		if err != nil {
			return fail(err)
		}
		for _, e := range ix.Sessions {
			subs = append(subs, sub{e.Name, filepath.Join(session.DirOf(dir), e.Dir)})
		}
	default:
		return fail(fmt.Errorf("%s is a %s session: the gate applies to races", dir, kind))
	}
	var baseFile *session.Baseline
	if *baseline != "" {
		if baseFile, err = readBaseline(*baseline); err != nil {
			return fail(fmt.Errorf("--baseline: %w", err))
		}
	}
	verdict := session.Pass
	var outs []*session.Summary
	for _, sb := range subs {
		s, err := session.LoadSummary(sb.dir)
		if err != nil {
			return fail(err)
		}
		if len(ths) > 0 {
			p := profile.Default()
			p.Thresholds = s.Thresholds
			o := &profile.Overrides{Thresholds: ths}
			if err := o.Apply(&p); err != nil {
				return fail(err)
			}
			s.Thresholds = p.Thresholds
		}
		var base *gate.Baseline
		if baseFile != nil {
			if base, err = gate.MatchBaseline(s, baseFile, *baseline); err != nil {
				return fail(err)
			}
		}
		gate.Apply(s, base)
		verdict = Worst(verdict, s.Verdict)
		outs = append(outs, s)
	}
	if *asJSON {
		if len(outs) == 1 {
			printJSON(stdout, outs[0])
		} else {
			printJSON(stdout, outs)
		}
		return gate.ExitCode(verdict)
	}
	for i, s := range outs {
		if subs[i].name != "" {
			fmt.Fprintf(stdout, "[%s]\n", subs[i].name)
		}
		for _, r := range s.Reasons {
			fmt.Fprintf(stdout, "  %s\n", r)
		}
		fmt.Fprintln(stdout, s.Headline)
	}
	if len(outs) > 1 {
		fmt.Fprintf(stdout, "overall %s\n", verdict)
	}
	return gate.ExitCode(verdict)
}

// readBaseline reads a baseline file, or makes one from a saved race session's counts.
func readBaseline(path string) (*session.Baseline, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		sums, err := raceSummaries(path)
		if err != nil {
			return nil, err
		}
		return gate.NewBaseline(sums, path)
	}
	return session.LoadBaseline(path)
}

// raceSummaries loads a race session's summaries: one, or each sub-session's of a race set.
func raceSummaries(dir string) ([]*session.Summary, error) {
	kind, err := session.Kind(dir)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "race":
		s, err := session.LoadSummary(dir)
		if err != nil {
			return nil, err
		}
		return []*session.Summary{s}, nil
	case "race-set":
		ix, err := session.LoadIndex(dir)
		if err != nil {
			return nil, err
		}
		var out []*session.Summary
		for _, e := range ix.Sessions {
			s, err := session.LoadSummary(filepath.Join(session.DirOf(dir), e.Dir))
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is a %s session, not a race", dir, kind)
}

const baselineUsage = `Usage: bindrace baseline write DIR [--out FILE]

Writes the candidate's deterministic counts (cachegrind instructions and the other counts per
response) of a saved race session, per scenario and shape, to a baseline file that
'bindrace gate DIR --baseline FILE' holds later sessions to. The session must have counted with
cachegrind (--counters cachegrind, or a profile with "counters": "cachegrind"), like the ci
profile. The file also names the build (kind, PGO profile hash) it is valid for.

Default --out: baselines/<profile>.json in the repository.`

// BaselineCommand is `bindrace baseline write`.
func BaselineCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("baseline", stderr)
	out := fs.String("out", "", "baseline file to write (default baselines/<profile>.json)")
	if code, done := parse(fs, "baseline", baselineUsage, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 2 || fs.Arg(0) != "write" {
		fmt.Fprintln(stderr, "bindrace baseline: want 'write DIR'\nRun 'bindrace baseline --help' for usage.")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "bindrace baseline: %v\n", err)
		return 2
	}
	dir := session.DirOf(fs.Arg(1))
	sums, err := raceSummaries(dir)
	if err != nil {
		return fail(err)
	}
	b, err := gate.NewBaseline(sums, dir)
	if err != nil {
		return fail(err)
	}
	path := *out
	if path == "" {
		name := session.SafeName(sums[0].Shape.Profile)
		root, _ := machine.RepoRoot()
		path = filepath.Join(root, "baselines", name+".json")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fail(err)
	}
	if err := session.WriteJSON(path, b); err != nil {
		return fail(err)
	}
	for _, e := range b.Entries {
		fmt.Fprintf(stdout, "%s %s (%d connections, pipelining %d): %.1f instructions per response\n",
			b.Target, e.Scenario, e.Connections, e.Pipelining, e.Counters["instructions"])
	}
	fmt.Fprintf(stdout, "wrote %s (build %s, profile %s)\n", path, b.Build["kind"], orNone(b.Build["profile_sha256"]))
	return 0
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

const reportUsage = `Usage: bindrace report DIR [--format md|html|csv|json|benchfmt]

Renders a saved session on stdout. Without --format it (re)writes summary.md, summary.csv and
report.html into DIR.`

// ReportCommand is `bindrace report`.
func ReportCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("report", stderr)
	format := fs.String("format", "", "md, html, csv, json or benchfmt (default: rewrite the report files)")
	if code, done := parse(fs, "report", reportUsage, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "bindrace report: give exactly one session directory\nRun 'bindrace report --help' for usage.")
		return 2
	}
	dir := session.DirOf(fs.Arg(0))
	if _, err := session.Kind(dir); err != nil {
		fmt.Fprintf(stderr, "bindrace report: %v\n", err)
		return 2
	}
	switch *format {
	case "":
		if err := report.RewriteSession(dir); err != nil {
			fmt.Fprintf(stderr, "bindrace report: %v\n", err)
			return 2
		}
		fmt.Fprintf(stdout, "wrote the reports in %s\n", dir)
		return 0
	case "md", "html", "csv", "json", "benchfmt":
	default:
		fmt.Fprintf(stderr, "bindrace report: bad flag value --format %q (want md, html, csv, json or benchfmt)\n", *format)
		return 2
	}
	if err := report.RenderSession(stdout, dir, *format); err != nil {
		fmt.Fprintf(stderr, "bindrace report: %v\n", err)
		return 2
	}
	return 0
}

const calibrateUsage = `Usage: bindrace calibrate --target T [--profile NAME] [--slowdowns 0,5] [--races 3] [flags]

Measures what the gate can catch on this machine: races T with its CPU time capped at
100-S% (T@cpuNN, through the cpu cgroup's quota: a known slowdown of the same code) against T,
--races times for each slowdown S (0: T against itself), under the profile, and writes
calibration.json with every verdict and the detection rate per slowdown. Needs root for the
cgroup. Flags given here override the profile, as for race.

Exit status: 0 done, 2 error (a race that could not finish; what was measured is saved).`

// CalibrateCommand is `bindrace calibrate`.
func CalibrateCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("calibrate", stderr)
	target := fs.String("target", "binding", "target to calibrate")
	ov := profile.AddFlags(fs, "release-linux", false)
	slowdowns := fs.IntSlice("slowdowns", []int{0, 5}, "slowdowns in percent of CPU time (0 = the target against itself)")
	races := fs.Int("races", 3, "races per slowdown")
	out := fs.String("out", "", "directory for calibration.json and the races (default results/<timestamp>-calibrate-<target>)")
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
	ctx, p, _, done, ok := prepare("calibrate", ov, "", stderr)
	if !ok {
		return 2
	}
	defer done()
	dir := *out
	if dir == "" {
		dir = filepath.Join(resultsDir(), session.Name(time.Now(), "calibrate", *target))
	}
	return Calibrate(ctx, CalibrateOptions{Target: *target, Profile: p, Slowdowns: *slowdowns, Races: *races,
		Out: dir, Stdout: stdout, Stderr: stderr, Command: os.Args})
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

// NoiseCommand is `bindrace noise`.
func NoiseCommand(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("noise", stderr)
	target := fs.String("target", "binding", "target to measure")
	ov := profile.AddFlags(fs, "release-linux", false)
	procs := fs.Int("processes", 6, "fresh server processes")
	noASLR := fs.Bool("setarch-r", false, "run the server under setarch -R (address-space layout randomisation off)")
	out := fs.String("out", "", "directory for noise.json (default results/<timestamp>-noise-<target>)")
	asJSON := fs.Bool("json", false, "print noise.json on stdout instead of the table")
	slog := fs.String("server-log", "", `copy the servers' output to this file ("-" = stderr)`)
	if code, done := parseNoArgs(fs, "noise", noiseUsage, args, stdout, stderr); done {
		return code
	}
	ctx, p, logw, done, ok := prepare("noise", ov, *slog, stderr)
	if !ok {
		return 2
	}
	defer done()
	if *procs < 2 || p.Windows < 2 || p.Duration.D() < time.Second {
		fmt.Fprintln(stderr, "bindrace noise: --processes and --windows must be at least 2, --duration at least 1s")
		return 2
	}
	var wrap []string
	if *noASLR {
		wrap = []string{"setarch", "-R"}
	}
	n, err := MeasureNoise(ctx, NoiseOptions{Target: *target, Profile: p, Processes: *procs, Windows: p.Windows,
		Window: p.Duration.D(), Wrap: wrap, Stderr: stderr, ServerLog: logw})
	dir := *out
	if dir == "" {
		dir = filepath.Join(resultsDir(), session.Name(time.Now(), "noise", *target))
	}
	path, werr := WriteNoise(dir, n)
	if err != nil || werr != nil {
		fmt.Fprintf(stderr, "bindrace noise: %v (what was measured is in %s)\n", errors.Join(err, werr), dir)
		return 2
	}
	if *asJSON {
		printJSON(stdout, n)
		return 0
	}
	fmt.Fprintf(stdout, "%s, %s, %d connections × pipelining %d, %s load generator, %d processes × %d windows of %s\n\n",
		n.Target, n.Scenario, n.Shape.Connections, n.Shape.Pipelining, n.Loadgen, *procs, p.Windows, p.Duration.D())
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
	fmt.Fprintf(stdout, "\nwrote %s\n", path)
	return 0
}
