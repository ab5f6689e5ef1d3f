package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/interrupt"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/kinds"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

const countersUsage = `Usage: bindrace counters --target T --scenario S [--mode perf|cachegrind|syscalls|rss-growth] [flags]

Per-response counters of one target serving one scenario (docs/counters.md explains every
table).

  perf        perf_event counters (hardware: cycles, instructions, branches, branch-misses,
              cache-references, cache-misses, IPC; software: task-clock, context switches, page
              faults) on every thread of a fresh server, enabled only during the measurement window
              after warm-up, divided by the responses counted in that window. A counter the host
              cannot give (no PMU in most VMs, perf_event_paranoid too high) is listed as
              unsupported with the reason, never as zero. --sample also samples the server's
              threads with perf record -e cpu-clock -g over the window (no PMU needed; perf runs
              on the client's CPUs): nanoseconds per response by function, user and kernel, by
              system call.
  cachegrind  the server under setarch -R valgrind --tool=cachegrind, driven with exactly N
              requests in one fresh run and 2N in another; (count(2N) - count(N)) / N cancels
              start-up and shutdown. Deterministic (instructions repeat to ~0.1%); user-space only.
              Per function and per source file, each row's own slope; a figure under the method's
              resolution is grouped, never shown as a number; estimated-cycles is a model over the
              simulated caches, estimated (simulated), not a count.
  syscalls    the server's system calls per response (tracepoints: no PMU needed), in total and
              by call, with context switches and bytes per send and recv, over N requests of the
              paced client cachegrind mode uses (one connection, --gap between batches), where
              the count is fixed by the protocol.
  rss-growth  how the server's resident set grows per 100k responses after a warm-up, in percent
              of what it held then: a line through 11 reads of /proc over N responses of the
              paced client (no PMU needed), with its resolution (two standard errors, at least a
              page). A server that does not leak grows by nothing within it.

A database scenario (get-user, list-orders, order-total, create-order) is counted as a race
serves it: PostgreSQL (the private cluster, or --db-url) beside the server on the load
generator's CPUs, every request with the next id of the scenario's key sequence (--keys), so
two targets are asked for the same rows in the same order. The server's counts are its own:
PostgreSQL's work is in none of them.

Exit status: 0 ok, 2 error.

Flags:
`

// countersArgs are the flags of `bindrace counters`.
type countersArgs struct {
	target, scenario       string
	o                      kinds.CountersOptions
	cpusServer, cpusClient string
	show                   tableSizes
	asJSON                 bool
	fold                   string
	responses              int64
	db                     *measure.DBOptions
}

// register puts the flags on fs.
func (a *countersArgs) register(fs *pflag.FlagSet, stderr io.Writer) {
	fs.StringVar(&a.target, "target", "", "target: "+targets.TargetHelp())
	addTargetFlags(fs)
	fs.StringVar(&a.scenario, "scenario", "ping", "scenario: "+strings.Join(scenario.Names(), ", ")+", or a database one ("+strings.Join(scenario.DBNames(), ", ")+": PostgreSQL starts beside the server, on the load generator's CPUs)")
	o := &a.o
	fs.StringVar(&o.Mode, "mode", "perf", counters.ModeNames(func(m counters.Mode) bool { return m.Alone }))
	fs.IntVar(&o.N, "n", counters.DefaultN, "cachegrind: requests in the first run (the second sends 2N); syscalls: requests counted; rss-growth: responses the growth is read over (after 20,000 of warm-up)")
	fs.DurationVar(&o.Duration, "duration", 5*time.Second, "perf: measured window")
	fs.DurationVar(&o.Warmup, "warmup", 2*time.Second, "perf: warm-up before the window (counters off)")
	fs.IntVar(&o.Connections, "connections", 0, "connections (default: perf 100, cachegrind 1)")
	fs.IntVar(&o.Pipelining, "pipelining", 10, "requests in flight per connection")
	fs.IntVar(&o.Workers, "workers", 1, "perf: load generator goroutines")
	fs.IntVar(&o.Threads, "threads", 0, "server threads (0 = the target's default)")
	fs.StringVar(&a.cpusServer, "cpus-server", "auto", `server CPUs (taskset list); "auto": the harness's default split (on 2 CPUs 1, on more the upper half); "none": not pinned`)
	fs.StringVar(&a.cpusClient, "cpus-client", "auto", `load generator CPUs; "auto": the other CPUs of the default split; "none": not pinned`)
	fs.DurationVar(&o.StartTimeout, "start-timeout", 0, "wait for the server's first valid response (default perf 30s; cachegrind 90s, node 180s)")
	fs.DurationVar(&o.Gap, "gap", 500*time.Microsecond, "cachegrind, syscalls: pause between batches on one connection (repeatable counts); cachegrind 0 = load generator in Count mode, closed loop (--connections honoured)")
	fs.StringVar(&o.Keep, "keep", "", "cachegrind: keep the cg.<pid> out files in this directory; perf --sample: keep the perf.data there")
	fs.BoolVar(&o.Sample, "sample", false, "perf: also sample the server's threads over the window (perf record -e cpu-clock -g, on the client's CPUs): ns per response by function, user/kernel, by system call")
	fs.DurationVar(&o.SamplePeriod, "sample-period", counters.DefaultSamplePeriod, "perf --sample: a sample per this much of a thread's CPU time (shorter: more samples, more overhead on the server)")
	fs.IntVar(&a.show.functions, "functions", 15, "cachegrind, perf --sample: print the top K functions (0: none; --json carries every one above the resolution or the floor)")
	fs.IntVar(&a.show.files, "files", 10, "cachegrind: print the top K source files (where inlined helpers' instructions show; 0: none)")
	fs.StringVar(&a.fold, "fold", "", "instead of measuring: fold FILE, a perf.data recorded elsewhere with perf record -e cpu-clock -g, into --sample's tables")
	fs.Int64Var(&a.responses, "responses", 0, "with --fold: the responses served while FILE was recorded (0: shares only)")
	fs.BoolVar(&a.asJSON, "json", false, "print one JSON object on stdout (progress goes to stderr)")
	a.db = addDBFlags(fs)
}

// check says what is wrong with the flags, "" when nothing.
func (a *countersArgs) check() string {
	o := a.o
	switch {
	case a.target == "":
		return "--target is required (" + targets.TargetHelp() + ")"
	case o.Sample && o.Mode != "perf":
		return "--sample needs --mode perf (it samples a server under live load)"
	case o.Mode != "perf" && o.N <= 0:
		return "--n must be > 0"
	case o.Pipelining <= 0 || o.Connections < 0 || o.Workers <= 0:
		return "--pipelining and --workers must be > 0, --connections >= 0"
	}
	return ""
}

// keepDirCheck says what is wrong with --keep's folder, "" when it is new or empty. The counts
// write their logs and fifos there under fixed names and read a run's cg.<pid> file back by
// its pid, falling back to any cg.* the folder holds: a folder of earlier files could be
// overwritten, or read as this run's.
func keepDirCheck(dir string) string {
	if dir == "" {
		return ""
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ""
	case err != nil:
		return err.Error()
	case len(entries) > 0:
		return fmt.Sprintf("the folder is not empty (it holds %s, of %d); give a new or empty one: the counts write fixed names there and read their cg.<pid> files back from it",
			entries[0].Name(), len(entries))
	}
	return ""
}

// countersCommand is `bindrace counters`.
func countersCommand(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("counters", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	var a countersArgs
	a.register(fs, stderr)
	if code, done := parseCountersFlags(fs, args, stdout, stderr); done {
		return code
	}
	fail := func(format string, v ...any) int {
		fmt.Fprintf(stderr, "counters: "+format+"\n", v...)
		return 2
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q (see --help)", fs.Arg(0))
	}
	if a.fold != "" {
		return foldCommand(a, stdout, stderr)
	}
	if why := a.check(); why != "" {
		return fail("%s", why)
	}
	if why := keepDirCheck(a.o.Keep); why != "" {
		return fail("--keep %s: %s", a.o.Keep, why)
	}
	o := a.o
	var err error
	if o.Scenario, err = scenario.ByName(a.scenario); err != nil {
		return fail("%v", err)
	}
	if o.CPUsServer, o.CPUsClient, err = cpuPlan(a.cpusServer, a.cpusClient); err != nil {
		return fail("%v", err)
	}
	ctx, stop := interrupt.Context(interrupt.Commands, interrupt.Handlers{})
	defer stop()
	out := newSessionOutput(stderr)
	o.Target, o.DB, o.ServerLog, o.Events = a.target, *a.db, stderr, out.event
	res, err := kinds.Counters(ctx, o)
	out.done()
	if err != nil && !errors.Is(err, kinds.ErrNoCounters) {
		return fail("%s", flagWords(err))
	}
	return finish("counters", a.asJSON, res.Summary, func() { writeCountersReport(stdout, res.Summary, a.show) }, 0, stdout, stderr, err)
}

// foldCommand is `bindrace counters --fold FILE`: a perf.data recorded elsewhere, folded into
// the sampler's tables.
func foldCommand(a countersArgs, stdout, stderr io.Writer) int {
	p, err := counters.FoldPerfData("perf", a.fold, counters.NoSymbolCode)
	if err != nil {
		fmt.Fprintf(stderr, "counters: --fold: %v\n", err)
		return 2
	}
	tab := p.Table(max(a.responses, 1))
	if a.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(tab)
		return 0
	}
	if a.responses <= 0 {
		fmt.Fprintln(stdout, "no --responses: the ns columns are ns over the whole file; the shares stand")
	}
	writeSample(stdout, tab, a.show.functions)
	return 0
}

// tableSizes is how many rows of each breakdown the text output prints.
type tableSizes struct{ functions, files int }

// parseCountersFlags parses the counters flags (and -h/--help, which prints the usage on
// stdout); done with exit 0 after the help, 2 on a bad flag.
func parseCountersFlags(fs *pflag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() {
		fmt.Fprint(stderr, countersUsage)
		fs.PrintDefaults()
	}
	err := fs.Parse(args)
	if err != nil && !errors.Is(err, pflag.ErrHelp) {
		fmt.Fprintf(stderr, "counters: %v (see bindrace counters --help)\n", err)
		return 2, true
	}
	if err != nil || *help {
		fs.SetOutput(stdout)
		fmt.Fprint(stdout, countersUsage)
		fs.PrintDefaults()
		return 0, true
	}
	return 0, false
}

// writeCountersReport prints what counters measured: the JSON object, or tables.
func writeCountersReport(w io.Writer, r *kinds.CountersReport, show tableSizes) {
	fmt.Fprintf(w, "%s, scenario %s, mode %s", r.Target, r.Scenario, r.Mode)
	switch r.Mode {
	case "cachegrind":
		fmt.Fprintf(w, ", N=%d (runs of N and 2N requests)", r.N)
	case "syscalls":
		fmt.Fprintf(w, ", N=%d requests counted, paced", r.N)
	case counters.ModeRSSGrowth:
		fmt.Fprintf(w, ", N=%d responses after the warm-up, paced", r.N)
	}
	fmt.Fprintf(w, ", %d connections × pipelining %d\n", r.Connections, r.Pipelining)
	fmt.Fprintf(w, "responses %d", r.Responses)
	if r.WindowS > 0 { // rss-growth reads along its run, without a window
		fmt.Fprintf(w, ", window %.3f s", r.WindowS)
	}
	if r.ServerCPUSeconds > 0 {
		fmt.Fprintf(w, ", server CPU %.3f s (/proc)", r.ServerCPUSeconds)
	}
	if r.Threads > 0 {
		fmt.Fprintf(w, ", %d server threads", r.Threads)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	writeTotals(w, r)
	if len(r.Unsupported) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "unsupported:")
		ukeys := map[string]bool{}
		for k := range r.Unsupported {
			ukeys[k] = true
		}
		for _, k := range counters.Order(ukeys) {
			fmt.Fprintf(w, "  %-17s %s\n", k, r.Unsupported[k])
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	writeBreakdown(w, r.Functions, show.functions)
	writeBreakdown(w, r.Files, show.files)
	writeSyscalls(w, r.Syscalls)
	writeSample(w, r.Sample, show.functions)
	if r.CPU != nil {
		fmt.Fprintf(w, "\nCPU: %s\n", r.CPU.Describe())
	}
	if r.Caveat != "" {
		fmt.Fprintf(w, "\nnote: %s\n", r.Caveat)
	}
}

// cpuPlan turns the --cpus-* flags into taskset lists ("" = not pinned): "auto" is the
// harness's default split (machine.DefaultCPUs), "none" pins nothing.
func cpuPlan(server, client string) (string, string, error) {
	autoS, autoC := machine.DefaultCPUs(runtime.NumCPU())
	resolve := func(v, auto string) (string, error) {
		switch v {
		case "none", "":
			return "", nil
		case "auto":
			return auto, nil
		}
		if err := machine.CheckCPUs(v); err != nil {
			return "", err
		}
		return v, nil
	}
	s, err := resolve(server, autoS)
	if err != nil {
		return "", "", fmt.Errorf("--cpus-server: %w", err)
	}
	c, err := resolve(client, autoC)
	if err != nil {
		return "", "", fmt.Errorf("--cpus-client: %w", err)
	}
	return s, c, nil
}
