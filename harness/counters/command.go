package counters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

const usage = `Usage: bindrace counters --target T --scenario S [--mode perf|cachegrind] [flags]

Per-response counters of one target serving one scenario.

  perf        perf_event counters (hardware: cycles, instructions, branches, branch-misses,
              cache-references, cache-misses, IPC; software: task-clock, context switches, page
              faults) on every thread of a fresh server, enabled only during the measurement window
              after warm-up, divided by the responses counted in that window. A counter the host
              cannot give (no PMU in most VMs, perf_event_paranoid too high) is listed as
              unsupported with the reason, never as zero.
  cachegrind  the server under setarch -R valgrind --tool=cachegrind, driven with exactly N
              requests in one fresh run and 2N in another; (count(2N) - count(N)) / N cancels
              start-up and shutdown. Deterministic (instructions repeat to ~0.1%); user-space only.

Exit status: 0 ok, 2 error.

Flags:
`

// Command is `bindrace counters`.
func Command(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("counters", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	target := fs.String("target", "", "target name: "+strings.Join(targets.Names(), ", ")+", cmd:<command with {port}>")
	scen := fs.String("scenario", "ping", "scenario: "+strings.Join(scenario.Names(), ", "))
	mode := fs.String("mode", "perf", "perf or cachegrind")
	n := fs.Int("n", DefaultN, "cachegrind: requests in the first run (the second sends 2N)")
	duration := fs.Duration("duration", 5*time.Second, "perf: measured window")
	warmup := fs.Duration("warmup", 2*time.Second, "perf: warm-up before the window (counters off)")
	conns := fs.Int("connections", 0, "connections (default: perf 100, cachegrind 1)")
	pipe := fs.Int("pipelining", 10, "requests in flight per connection")
	workers := fs.Int("workers", 1, "perf: load generator goroutines")
	threads := fs.Int("threads", 0, "server threads (0 = the target's default)")
	cpusServer := fs.String("cpus-server", "auto", `server CPUs (taskset list); "auto": the harness's default split (on 2 CPUs 1, on more the upper half); "none": not pinned`)
	cpusClient := fs.String("cpus-client", "auto", `load generator CPUs; "auto": the other CPUs of the default split; "none": not pinned`)
	startTimeout := fs.Duration("start-timeout", 0, "wait for the server's first valid response (default perf 30s; cachegrind 90s, node 180s)")
	gap := fs.Duration("gap", 500*time.Microsecond, "cachegrind: pause between batches on one connection (repeatable counts); 0 = load generator in Count mode, closed loop (--connections honoured)")
	keep := fs.String("keep", "", "cachegrind: keep the cg.<pid> out files in this directory")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout (progress goes to stderr)")
	help := fs.BoolP("help", "h", false, "show this help")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fs.SetOutput(stdout)
			fmt.Fprint(stdout, usage)
			fs.PrintDefaults()
			return 0
		}
		fmt.Fprintf(stderr, "counters: %v (see bindrace counters --help)\n", err)
		return 2
	}
	if *help {
		fs.SetOutput(stdout)
		fmt.Fprint(stdout, usage)
		fs.PrintDefaults()
		return 0
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "counters: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q (see --help)", fs.Arg(0))
	}
	if *target == "" {
		return fail("--target is required (known: %s, cmd:<command with {port}>)", strings.Join(targets.Names(), ", "))
	}
	if *mode != "perf" && *mode != "cachegrind" {
		return fail("unknown --mode %q: perf or cachegrind", *mode)
	}
	sc, err := scenario.ByName(*scen)
	if err != nil {
		return fail("%v", err)
	}
	if *mode == "cachegrind" && *n <= 0 {
		return fail("--n must be > 0")
	}
	if *pipe <= 0 || *conns < 0 || *workers <= 0 {
		return fail("--pipelining and --workers must be > 0, --connections >= 0")
	}
	t, err := targets.Resolve(*target)
	if err != nil {
		return fail("%v", err)
	}
	srvCPUs, cliCPUs, err := cpuPlan(*cpusServer, *cpusClient)
	if err != nil {
		return fail("%v", err)
	}
	restore, err := machine.PinSelf(cliCPUs)
	if err != nil {
		return fail("--cpus-client %s: %v", cliCPUs, err)
	}
	defer restore()

	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	out := report{Target: t.Name, Scenario: sc.Name, Mode: *mode, Pipelining: *pipe, CPUsServer: srvCPUs, CPUsClient: cliCPUs}
	switch *mode {
	case "perf":
		fmt.Fprintf(stderr, "counters: %s %s: perf mode, %s warm-up, %s window\n", t.Name, sc.Name, *warmup, *duration)
		res, err := Perf(ctx, t, sc, PerfOptions{
			Connections: *conns, Pipelining: *pipe, Workers: *workers, Warmup: *warmup, Duration: *duration,
			CPUs: srvCPUs, Threads: *threads, StartTimeout: *startTimeout, Log: stderr,
		})
		if err != nil {
			return fail("%s %s: %v", t.Name, sc.Name, err)
		}
		out.Connections = *conns
		if out.Connections == 0 {
			out.Connections = 100
		}
		out.fill(res.Totals, res.Responses, res.PerResponse)
		out.ServerCPUSeconds = Round(res.ServerCPUSeconds)
		out.Threads = res.Totals.Threads
		if len(res.Totals.Values) == 0 {
			writeReport(stdout, out, *asJSON)
			return fail("no counter could be read on this host (reasons above)")
		}
	case "cachegrind":
		c := *conns
		if c == 0 {
			c = 1
		}
		g := *gap
		if g <= 0 {
			g = -1 // load.Run, Count mode
		} else if c != 1 {
			return fail("--connections %d needs --gap 0: the paced cachegrind client uses one connection", c)
		}
		res, err := Cachegrind(ctx, t, sc, *n, CachegrindOptions{
			Connections: c, Pipelining: *pipe, CPUs: srvCPUs, Threads: *threads,
			StartTimeout: *startTimeout, Dir: *keep, Log: stderr, Gap: g,
		})
		if err != nil {
			return fail("%v", err)
		}
		out.Connections = c
		out.N = res.N
		out.fill(res.Totals, res.Responses, res.PerResponse)
		out.Events = RoundMap(res.Events)
		out.Runs = res.Runs
		out.Caveat = UserSpaceCaveat
	}
	writeReport(stdout, out, *asJSON)
	return 0
}

// report is the `counters --json` object.
type report struct {
	Target           string             `json:"target"`
	Scenario         string             `json:"scenario"`
	Mode             string             `json:"mode"`
	N                int                `json:"n,omitempty"`
	Connections      int                `json:"connections"`
	Pipelining       int                `json:"pipelining"`
	CPUsServer       string             `json:"cpus_server,omitempty"`
	CPUsClient       string             `json:"cpus_client,omitempty"`
	Responses        int64              `json:"responses"`
	WindowS          float64            `json:"window_s"`
	PerResponse      map[string]float64 `json:"per_response"`
	Totals           map[string]float64 `json:"totals"`
	Unsupported      map[string]string  `json:"unsupported"`
	Threads          int                `json:"threads,omitempty"`
	ServerCPUSeconds float64            `json:"server_cpu_s,omitempty"`
	Events           map[string]float64 `json:"events_per_response,omitempty"`
	Runs             []CachegrindRun    `json:"runs,omitempty"`
	Caveat           string             `json:"caveat,omitempty"`
	Notes            []string           `json:"notes,omitempty"`
}

func (r *report) fill(t Totals, responses int64, per map[string]float64) {
	r.Responses = responses
	r.WindowS = Round(t.Window.Seconds())
	r.PerResponse = RoundMap(per)
	r.Totals = RoundMap(t.Values)
	r.Unsupported = t.Unsupported
	if r.Unsupported == nil {
		r.Unsupported = map[string]string{}
	}
	r.Notes = t.Notes
}

func writeReport(w io.Writer, r report, asJSON bool) {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(r)
		return
	}
	fmt.Fprintf(w, "%s, scenario %s, mode %s", r.Target, r.Scenario, r.Mode)
	if r.Mode == "cachegrind" {
		fmt.Fprintf(w, ", N=%d (runs of N and 2N requests)", r.N)
	}
	fmt.Fprintf(w, ", %d connections × pipelining %d\n", r.Connections, r.Pipelining)
	fmt.Fprintf(w, "responses %d, window %.3f s", r.Responses, r.WindowS)
	if r.ServerCPUSeconds > 0 {
		fmt.Fprintf(w, ", server CPU %.3f s (/proc)", r.ServerCPUSeconds)
	}
	if r.Threads > 0 {
		fmt.Fprintf(w, ", %d server threads", r.Threads)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "counter\ttotal\tper response\t")
	keys := map[string]bool{}
	for k := range r.PerResponse {
		keys[k] = true
	}
	for _, k := range order(keys) {
		total := "-"
		if v, ok := r.Totals[k]; ok {
			total = fmtCount(v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", k, total, fmtCount(r.PerResponse[k]))
	}
	tw.Flush()
	if len(r.Unsupported) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "unsupported:")
		ukeys := map[string]bool{}
		for k := range r.Unsupported {
			ukeys[k] = true
		}
		for _, k := range order(ukeys) {
			fmt.Fprintf(w, "  %-17s %s\n", k, r.Unsupported[k])
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
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
