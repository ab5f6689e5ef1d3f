package counters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// Report is what `bindrace counters` measured (its --json object).
type Report struct {
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

	// cachegrind: a total whose per-response slope is under the resolution is left out of
	// per_response and totals and listed in under_resolution with that resolution, never shown
	// as a (possibly negative) number.
	Resolution      Resolution         `json:"resolution,omitempty"`
	UnderResolution map[string]float64 `json:"under_resolution,omitempty"`
	// cachegrind: estimated-cycles per response, a model, labelled in Labels.
	Estimated map[string]float64 `json:"estimated_per_response,omitempty"`
	Labels    map[string]string  `json:"labels,omitempty"`
	Functions *Breakdown         `json:"functions,omitempty"`
	Files     *Breakdown         `json:"files,omitempty"`
	// perf --sample: where the window's CPU time went ("sample" in unsupported says why not).
	Sample *SampleTable `json:"sample,omitempty"`
	// syscalls: system calls per response under the paced client.
	Syscalls *SyscallTable `json:"syscalls,omitempty"`
	// cachegrind: the CPU, what the server saw under valgrind and the switches applied.
	CPU *session.CountedCPU `json:"cpu,omitempty"`

	Caveat string   `json:"caveat,omitempty"`
	Notes  []string `json:"notes,omitempty"`
}

func (r *Report) fill(t Totals, responses int64, per map[string]float64) {
	r.Responses = responses
	r.WindowS = round.Readable(t.Window.Seconds())
	r.PerResponse = RoundMap(per)
	r.Totals = RoundMap(t.Values)
	r.Unsupported = t.Unsupported
	if r.Unsupported == nil {
		r.Unsupported = map[string]string{}
	}
	r.Notes = t.Notes
}

// fillCachegrind adds what only cachegrind mode has, and takes the totals under their
// resolution out of per_response and totals.
func (r *Report) fillCachegrind(res *CachegrindResult) {
	r.N = res.N
	r.fill(res.Totals, res.Responses, res.PerResponse)
	r.Events = RoundMap(res.Events)
	r.Runs = res.Runs
	r.Caveat = UserSpaceCaveat
	r.Resolution = RoundMap(res.Resolution)
	r.Estimated = RoundMap(res.Estimated)
	r.Labels = map[string]string{EstimatedCycles: EstimatedLabel + ": " + EstimatedFormula}
	r.Functions, r.Files, r.CPU = res.Functions, res.Files, res.CPU
	for k, v := range res.PerResponse {
		if res.Resolution != nil && !res.Resolution.resolves(k, v) {
			if r.UnderResolution == nil {
				r.UnderResolution = map[string]float64{}
			}
			r.UnderResolution[k] = round.Readable(res.Resolution[k])
			delete(r.PerResponse, k)
			delete(r.Totals, k)
		}
	}
}

// Options say what Measure counts: the flags of `bindrace counters`.
type Options struct {
	Mode         string        // "perf", "cachegrind" or "syscalls"
	N            int           // cachegrind: requests in the first run (the second sends 2N); syscalls: requests counted
	Duration     time.Duration // perf: measured window
	Warmup       time.Duration // perf: warm-up before the window (counters off)
	Connections  int           // 0: perf 100, cachegrind 1
	Pipelining   int
	Workers      int // perf: load generator goroutines
	Threads      int // server threads, 0 = the target's default
	CPUsServer   string
	CPUsClient   string        // recorded: the caller pins the load generator (this process); the sampler runs there too
	StartTimeout time.Duration // 0: the mode's default
	Gap          time.Duration // cachegrind, syscalls: pause between batches; cachegrind <= 0: Count mode, closed loop
	Keep         string        // cachegrind: keep the cg.<pid> out files here; perf --sample: the perf.data
	Sample       bool          // perf: also sample where the window's CPU time goes (perf record)
	SamplePeriod time.Duration // perf --sample: cpu-clock period, 0 = DefaultSamplePeriod
	DB           Backend       // a database scenario's trial database; nil for the others
	Log          io.Writer     // progress
}

// Modes are the values of Options.Mode.
var Modes = []string{"perf", "cachegrind", "syscalls"}

// ErrNoCounters is Measure's error when perf mode could read no counter on this host; the
// Report still says why for each.
var ErrNoCounters = errors.New("no counter could be read on this host (reasons above)")

// Measure counts t serving sc in o.Mode and returns the per-response figures.
func Measure(ctx context.Context, t *targets.Target, sc scenario.Scenario, o Options) (*Report, error) {
	out := &Report{Target: t.Name, Scenario: sc.Name, Mode: o.Mode, Pipelining: o.Pipelining, CPUsServer: o.CPUsServer, CPUsClient: o.CPUsClient}
	switch o.Mode {
	case "perf":
		return out, measurePerf(ctx, t, sc, o, out)
	case "cachegrind":
		return out, measureCachegrind(ctx, t, sc, o, out)
	case "syscalls":
		return out, measureSyscalls(ctx, t, sc, o, out)
	}
	return nil, fmt.Errorf("unknown --mode %q: %s", o.Mode, strings.Join(Modes, ", "))
}

// measurePerf fills out with perf mode's counters (and the sample table when asked).
func measurePerf(ctx context.Context, t *targets.Target, sc scenario.Scenario, o Options, out *Report) error {
	fmt.Fprintf(o.Log, "counters: %s %s: perf mode, %s warm-up, %s window\n", t.Name, sc.Name, o.Warmup, o.Duration)
	po := PerfOptions{
		Connections: o.Connections, Pipelining: o.Pipelining, Workers: o.Workers, Warmup: o.Warmup, Duration: o.Duration,
		CPUs: o.CPUsServer, Threads: o.Threads, StartTimeout: o.StartTimeout, DB: o.DB, Log: o.Log,
	}
	if o.Sample {
		po.Sample = &SamplerOptions{CPUs: o.CPUsClient, Dir: o.Keep, Period: o.SamplePeriod}
	}
	res, err := Perf(ctx, t, sc, po)
	if err != nil {
		return fmt.Errorf("%s %s: %v", t.Name, sc.Name, err)
	}
	out.Connections = o.Connections
	if out.Connections == 0 {
		out.Connections = 100
	}
	out.fill(res.Totals, res.Responses, res.PerResponse)
	out.ServerCPUSeconds = round.Readable(res.ServerCPUSeconds)
	out.Threads = res.Totals.Threads
	out.Sample = res.Sample
	if res.SampleError != "" {
		out.Unsupported["sample"] = res.SampleError
	}
	if len(res.Totals.Values) == 0 {
		return ErrNoCounters
	}
	return nil
}

// measureCachegrind fills out with cachegrind mode's counts and breakdowns.
func measureCachegrind(ctx context.Context, t *targets.Target, sc scenario.Scenario, o Options, out *Report) error {
	c := o.Connections
	if c == 0 {
		c = 1
	}
	g := o.Gap
	if g <= 0 {
		g = -1 // load.Run, Count mode
	} else if c != 1 {
		return fmt.Errorf("--connections %d needs --gap 0: the paced cachegrind client uses one connection", c)
	}
	res, err := Cachegrind(ctx, t, sc, o.N, CachegrindOptions{
		Connections: c, Pipelining: o.Pipelining, CPUs: o.CPUsServer, Threads: o.Threads,
		StartTimeout: o.StartTimeout, Dir: o.Keep, DB: o.DB, Log: o.Log, Gap: g,
	})
	if err != nil {
		return err
	}
	out.Connections = c
	out.fillCachegrind(res)
	return nil
}

// measureSyscalls fills out with the paced system-call counts.
func measureSyscalls(ctx context.Context, t *targets.Target, sc scenario.Scenario, o Options, out *Report) error {
	if o.Connections > 1 {
		return fmt.Errorf("--connections %d: the paced client of syscalls mode uses one connection", o.Connections)
	}
	res, err := PacedSyscalls(ctx, t, sc, PacedSyscallOptions{
		N: o.N, Pipelining: o.Pipelining, Gap: o.Gap, CPUs: o.CPUsServer, Threads: o.Threads,
		StartTimeout: o.StartTimeout, DB: o.DB, Log: o.Log,
	})
	if err != nil {
		return fmt.Errorf("%s %s: %v", t.Name, sc.Name, err)
	}
	out.Connections, out.N = 1, res.N
	tab := res.Table
	per := map[string]float64{}
	if tab.Unsupported == "" {
		per[Syscalls], per[ContextSwitches] = tab.PerResponse, tab.ContextSwitches
	}
	out.fill(res.Totals, tab.Responses, per)
	out.Totals = map[string]float64{}
	for _, k := range []string{Syscalls, ContextSwitches} {
		if v, ok := res.Totals.Values[k]; ok {
			out.Totals[k] = v
		}
	}
	out.Unsupported = map[string]string{}
	if tab.Unsupported != "" {
		out.Unsupported[Syscalls] = tab.Unsupported
	}
	if why, ok := res.Totals.Unsupported[ContextSwitches]; ok {
		out.Unsupported[ContextSwitches] = why
	}
	out.Syscalls = tab
	return nil
}
