package kinds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/cpuid"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/setting"
)

// CountersReport is what `bindrace counters` measured (its --json object).
type CountersReport struct {
	Target           string                   `json:"target"`
	Scenario         string                   `json:"scenario"`
	Mode             string                   `json:"mode"`
	N                int                      `json:"n,omitempty"`
	Connections      int                      `json:"connections"`
	Pipelining       int                      `json:"pipelining"`
	CPUsServer       string                   `json:"cpus_server,omitempty"`
	CPUsClient       string                   `json:"cpus_client,omitempty"`
	Responses        int64                    `json:"responses"`
	WindowS          float64                  `json:"window_s"`
	PerResponse      map[string]float64       `json:"per_response"`
	Totals           map[string]float64       `json:"totals"`
	Unsupported      map[string]string        `json:"unsupported"`
	Threads          int                      `json:"threads,omitempty"`
	ServerCPUSeconds float64                  `json:"server_cpu_s,omitempty"`
	Events           map[string]float64       `json:"events_per_response,omitempty"`
	Runs             []counters.CachegrindRun `json:"runs,omitempty"`

	// cachegrind: a total whose per-response slope is under the resolution is left out of
	// per_response and totals and listed in under_resolution with that resolution, never shown
	// as a (possibly negative) number.
	Resolution      counters.Resolution `json:"resolution,omitempty"`
	UnderResolution map[string]float64  `json:"under_resolution,omitempty"`
	// cachegrind: estimated-cycles per response, a model, labelled in Labels.
	Estimated map[string]float64  `json:"estimated_per_response,omitempty"`
	Labels    map[string]string   `json:"labels,omitempty"`
	Functions *counters.Breakdown `json:"functions,omitempty"`
	Files     *counters.Breakdown `json:"files,omitempty"`
	// perf --sample: where the window's CPU time went ("sample" in unsupported says why not).
	Sample *counters.SampleTable `json:"sample,omitempty"`
	// syscalls: system calls per response under the paced client.
	Syscalls *counters.SyscallTable `json:"syscalls,omitempty"`
	// rss-growth: the resident set along the run.
	RSSReads []counters.RSSRead `json:"rss_reads,omitempty"`
	// cachegrind: the CPU, what the server saw under valgrind and the switches applied.
	CPU *cpuid.CountedCPU `json:"cpu,omitempty"`

	Caveat string   `json:"caveat,omitempty"`
	Notes  []string `json:"notes,omitempty"`
}

func (r *CountersReport) fill(t counters.Totals, responses int64, per map[string]float64) {
	r.Responses = responses
	r.WindowS = round.Readable(t.Window.Seconds())
	r.PerResponse = counters.RoundMap(per)
	r.Totals = counters.RoundMap(t.Values)
	r.Unsupported = t.Unsupported
	if r.Unsupported == nil {
		r.Unsupported = map[string]string{}
	}
	r.Notes = t.Notes
}

// fillCachegrind adds what only cachegrind mode has, and takes the totals under their
// resolution out of per_response and totals.
func (r *CountersReport) fillCachegrind(res *counters.CachegrindResult) {
	r.N = res.N
	r.fill(res.Totals, res.Responses, res.PerResponse)
	r.Events = counters.RoundMap(res.Events)
	r.Runs = res.Runs
	r.Caveat = counters.UserSpaceCaveat
	r.Resolution = counters.RoundMap(res.Resolution)
	r.Estimated = counters.RoundMap(res.Estimated)
	r.Labels = map[string]string{counters.EstimatedCycles: counters.EstimatedLabel + ": " + counters.EstimatedFormula}
	r.Functions, r.Files, r.CPU = res.Functions, res.Files, res.CPU
	for k, v := range res.PerResponse {
		if res.Resolution != nil && !res.Resolution.Resolves(k, v) {
			if r.UnderResolution == nil {
				r.UnderResolution = map[string]float64{}
			}
			r.UnderResolution[k] = round.Readable(res.Resolution[k])
			delete(r.PerResponse, k)
			delete(r.Totals, k)
		}
	}
}

// CountersOptions say what Counters counts: the flags of `bindrace counters`.
type CountersOptions struct {
	Target       string
	Scenario     scenario.Scenario
	Mode         string        // a mode of counters.Modes that counts alone
	N            int           // cachegrind: requests in the first run (the second sends 2N); syscalls: requests counted
	Duration     time.Duration // perf: measured window
	Warmup       time.Duration // perf: warm-up before the window (counters off)
	Connections  int           // 0: perf 100, cachegrind 1
	Pipelining   int
	Workers      int // perf: load generator goroutines
	Threads      int // server threads, 0 = the target's default
	CPUsServer   string
	CPUsClient   string            // the load generator (this process) is pinned there; the sampler runs there too
	StartTimeout time.Duration     // 0: the mode's default
	Gap          time.Duration     // cachegrind, syscalls: pause between batches; cachegrind <= 0: Count mode, closed loop
	Keep         string            // cachegrind: keep the cg.<pid> out files here; perf with Sample: the perf.data
	Sample       bool              // perf: also sample where the window's CPU time goes (perf record)
	SamplePeriod time.Duration     // perf with Sample: cpu-clock period, 0 = counters.DefaultSamplePeriod
	DB           measure.DBOptions // a database scenario's database
	ServerLog    io.Writer         // the server's output; nil: discarded
	Events       measure.Events
}

// ErrNoCounters is Counters' error when perf mode could read no counter on this host; the
// report still says why for each.
var ErrNoCounters = errors.New("no counter could be read on this host (reasons above)")

// Counters counts o.Target serving o.Scenario in o.Mode on a rig of its own (the server on
// the server CPUs, this process pinned to the client's, the scenario's database beside it) and
// returns the per-response figures. Nothing is saved: the Result has no directory.
func Counters(ctx context.Context, o CountersOptions) (Result[CountersReport], error) {
	rep, err := count(ctx, o)
	return Result[CountersReport]{Summary: rep}, err
}

// count is Counters' measurement: the report, even with ErrNoCounters (it says why).
func count(ctx context.Context, o CountersOptions) (*CountersReport, error) {
	switch m, ok := counters.ModeNamed(o.Mode); {
	case !ok:
		return nil, setting.Errorf("unknown {mode} %q: want %s", o.Mode, counters.ModeNames(func(m counters.Mode) bool { return m.Alone }))
	case !m.Alone:
		return nil, setting.Errorf("{mode} %s does not count alone: it samples perf mode's window ({sample})", o.Mode)
	}
	pl := measure.Plan{Method: profile.Method{Threads: o.Threads, CPUsServer: o.CPUsServer, CPUsClient: o.CPUsClient}, StartTimeout: 30 * time.Second}
	rig, err := measure.NewRig(measure.Config{Plan: pl, Targets: []string{o.Target}, ServerLog: o.ServerLog, Events: o.Events})
	if err != nil {
		return nil, err
	}
	defer rig.Close()
	restore, err := machine.PinSelf(o.CPUsClient)
	if err != nil {
		return nil, setting.Errorf("{cpus_client} %s: %v", o.CPUsClient, err)
	}
	defer restore()
	if o.Scenario.Database != "" {
		if err := rig.Target(o.Target).Refuses([]string{o.Scenario.Name}); err != nil {
			return nil, err // before PostgreSQL starts for nothing
		}
		if err := o.DB.Check(); err != nil {
			return nil, err
		}
	}
	if err := rig.OpenDatabase(ctx, o.DB, []scenario.Scenario{o.Scenario}); err != nil {
		return nil, err
	}
	out := &CountersReport{Target: o.Target, Scenario: o.Scenario.Name, Mode: o.Mode, Pipelining: o.Pipelining, CPUsServer: o.CPUsServer, CPUsClient: o.CPUsClient}
	c := rig.Counter()
	switch o.Mode {
	case counters.ModePerf:
		return out, countPerf(ctx, c, o, out)
	case counters.ModeCachegrind:
		return out, countCachegrind(ctx, c, o, out)
	case counters.ModeRSSGrowth:
		return out, countRSSGrowth(ctx, c, o, out)
	}
	return out, countSyscalls(ctx, c, o, out)
}

// countPerf fills out with perf mode's counters (and the sample table when asked).
func countPerf(ctx context.Context, c measure.Counter, o CountersOptions, out *CountersReport) error {
	o.Events.Notef("counters: %s %s: perf mode, %s warm-up, %s window", o.Target, o.Scenario.Name, o.Warmup, o.Duration)
	po := measure.PerfOptions{
		Connections: o.Connections, Pipelining: o.Pipelining, Workers: o.Workers, Warmup: o.Warmup, Duration: o.Duration, StartTimeout: o.StartTimeout,
	}
	if o.Sample {
		po.Sample = &counters.SamplerOptions{CPUs: o.CPUsClient, Dir: o.Keep, Period: o.SamplePeriod}
	}
	res, err := c.Perf(ctx, o.Target, o.Scenario, po)
	if err != nil {
		return fmt.Errorf("%s %s: %v", o.Target, o.Scenario.Name, err)
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
		out.Unsupported[counters.ModeSample] = res.SampleError
	}
	if len(res.Totals.Values) == 0 {
		return ErrNoCounters
	}
	return nil
}

// countCachegrind fills out with cachegrind mode's counts and breakdowns.
func countCachegrind(ctx context.Context, c measure.Counter, o CountersOptions, out *CountersReport) error {
	conns := max(o.Connections, 1)
	g := o.Gap
	if g <= 0 {
		g = -1 // load.Run, Count mode
	} else if conns != 1 {
		return setting.Errorf("{connections} %d needs {gap} 0: the paced cachegrind client uses one connection", conns)
	}
	res, err := c.Cachegrind(ctx, o.Target, o.Scenario, o.N, measure.CachegrindOptions{
		Connections: conns, Pipelining: o.Pipelining, StartTimeout: o.StartTimeout, Dir: o.Keep, Gap: g,
	})
	if err != nil {
		return err
	}
	out.Connections = conns
	out.fillCachegrind(res)
	return nil
}

// countRSSGrowth fills out with the resident set's growth per 100k responses, and its reads.
func countRSSGrowth(ctx context.Context, c measure.Counter, o CountersOptions, out *CountersReport) error {
	if o.Connections > 1 {
		return setting.Errorf("{connections} %d: the paced client of rss-growth mode uses one connection", o.Connections)
	}
	res, err := c.RSSGrowth(ctx, o.Target, o.Scenario, measure.RSSGrowthOptions{N: o.N, Pipelining: o.Pipelining, StartTimeout: o.StartTimeout})
	if err != nil {
		return fmt.Errorf("%s %s: %v", o.Target, o.Scenario.Name, err)
	}
	out.Connections, out.N, out.Responses = 1, res.N, int64(res.N)
	out.PerResponse = map[string]float64{counters.RSSGrowth: round.Readable(res.GrowthPct)}
	out.Resolution = counters.Resolution{counters.RSSGrowth: round.Readable(res.ResolutionPct)}
	out.Unsupported = map[string]string{}
	out.RSSReads = res.Reads
	first, last := res.Reads[0], res.Reads[len(res.Reads)-1]
	out.Notes = append(out.Notes, fmt.Sprintf("%s: the resident set's growth per 100k responses, in %% of the %.1f MiB it held after the warm-up (±%.3f); %d reads from %.1f to %.1f MiB over %d responses",
		counters.RSSGrowth, float64(first.RSSBytes)/(1<<20), res.ResolutionPct, len(res.Reads), float64(first.RSSBytes)/(1<<20), float64(last.RSSBytes)/(1<<20), last.Responses))
	return nil
}

// countSyscalls fills out with the paced system-call counts.
func countSyscalls(ctx context.Context, c measure.Counter, o CountersOptions, out *CountersReport) error {
	if o.Connections > 1 {
		return setting.Errorf("{connections} %d: the paced client of syscalls mode uses one connection", o.Connections)
	}
	res, err := c.PacedSyscalls(ctx, o.Target, o.Scenario, measure.PacedSyscallOptions{
		N: o.N, Pipelining: o.Pipelining, Gap: o.Gap, StartTimeout: o.StartTimeout,
	})
	if err != nil {
		return fmt.Errorf("%s %s: %v", o.Target, o.Scenario.Name, err)
	}
	out.Connections, out.N = 1, res.N
	tab := res.Table
	per := map[string]float64{}
	if tab.Unsupported == "" {
		per[counters.Syscalls], per[counters.ContextSwitches] = tab.PerResponse, tab.ContextSwitches
	}
	out.fill(res.Totals, tab.Responses, per)
	out.Totals = map[string]float64{}
	for _, k := range []string{counters.Syscalls, counters.ContextSwitches} {
		if v, ok := res.Totals.Values[k]; ok {
			out.Totals[k] = v
		}
	}
	out.Unsupported = map[string]string{}
	if tab.Unsupported != "" {
		out.Unsupported[counters.Syscalls] = tab.Unsupported
	}
	if why, ok := res.Totals.Unsupported[counters.ContextSwitches]; ok {
		out.Unsupported[counters.ContextSwitches] = why
	}
	out.Syscalls = tab
	return nil
}
