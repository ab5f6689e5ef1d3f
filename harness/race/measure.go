package race

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
	"github.com/bindrace/bindrace/harness/targets"
)

// A run is one server process measured in one or more windows. The plan decides the method:
//   - one window (Plan.Windows <= 1): each run is its own fresh process: start, verify, warm
//     up, settle, measure, stop, cool down; a pair is two such runs back to back;
//   - several windows: a pair starts both servers, warms both, then measures them in
//     alternating windows (A B B A A B …), each window on fresh connections, and each side's
//     run is the sum of its windows. The closed loop falls into a batching regime per set of
//     connections, which makes one window vary by several percent (docs/noise.md); the windows
//     average regimes out, and alternating them cancels the machine's drift within the pair.

// runSpec says what one run measures.
type runSpec struct {
	target      string
	sc          scenario.Scenario
	connections int
	pipelining  int
	slot        int
	label       string  // for progress: "pair 3/10 AB binding"
	rate        float64 // > 0: an open loop at this many requests per second in all
}

// live is a started, verified server under measurement, with a context that ends when the
// session is cancelled or the server dies.
type live struct {
	rs     runSpec
	srv    server
	ctx    context.Context
	cancel context.CancelFunc
	drive  func(ctx context.Context, warmup, duration time.Duration, h load.Hooks) (*load.Result, error)
	count  func(ctx context.Context, n int64) (*load.Result, error) // exactly n requests (built-in load generator)
	tally  tally
	ramp   time.Duration // warm-up inside each measured load, after the warm-up proper
}

// launch starts rs's server and verifies its scenario.
func (e *engine) launch(ctx context.Context, rs runSpec) (*live, error) {
	resetMs, err := e.resetDB(ctx, rs)
	if err != nil {
		return nil, err
	}
	e.status(rs, "starting", 0, 0)
	srv, err := e.start(ctx, rs.target)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	lv := &live{rs: rs, srv: srv, ctx: lctx, cancel: cancel, drive: e.driver(rs, srv.Addr()), count: e.counter(rs, srv.Addr())}
	lv.tally.startupMs, lv.tally.db.resetMs = ms(srv.startup()), resetMs
	go func() {
		select {
		case <-srv.Exited():
			cancel()
		case <-lctx.Done():
		}
	}()
	e.status(rs, "verifying", 0, 0)
	if verr := e.verifyRun(lctx, rs, srv.Addr()); verr != nil {
		if lv.died() || ctx.Err() != nil {
			return lv, e.failure(ctx, lv, "verification", verr)
		}
		return lv, fmt.Errorf("target %s failed verification: %w", rs.target, verr)
	}
	return lv, nil
}

func (lv *live) died() bool {
	select {
	case <-lv.srv.Exited():
		return true
	default:
		return false
	}
}

// failure says why a step of lv stopped: the session was interrupted (checked first: cancelling
// it stops the server too), the server died, or the step failed.
func (e *engine) failure(ctx context.Context, lv *live, what string, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w during %s of %s", ErrInterrupted, what, lv.rs.target)
	case lv.died():
		why := ""
		if xe := lv.srv.ExitError(); xe != nil {
			why = ": " + xe.Error()
		}
		return diedError{fmt.Sprintf("target %s (pid %d) exited during %s%s", lv.rs.target, lv.srv.pid(), what, why)}
	}
	return fmt.Errorf("target %s, %s: %w", lv.rs.target, what, err)
}

// warm runs the warm-up. As its own load when a settle pause follows it; otherwise inside the
// first measured load's warm-up phase. Either way it is excluded from every figure.
func (e *engine) warm(ctx context.Context, lv *live) error {
	if err := e.warmCount(ctx, lv); err != nil {
		return err
	}
	lv.ramp = e.plan.Warmup
	if e.plan.Settle <= 0 || e.plan.Warmup <= 0 {
		return nil
	}
	_, err := lv.drive(lv.ctx, 0, e.plan.Warmup, load.Hooks{Progress: func(p load.Progress) {
		e.status(lv.rs, "warm-up", p.Elapsed, p.Rate)
	}})
	if err != nil || lv.died() || ctx.Err() != nil {
		return e.failure(ctx, lv, "warm-up", err)
	}
	e.status(lv.rs, "settling", 0, 0)
	if !sleep(lv.ctx, e.plan.Settle) {
		return e.failure(ctx, lv, "settle", lv.ctx.Err())
	}
	// A short ramp so connections are open and pipelines full when a window opens.
	lv.ramp = min(100*time.Millisecond, e.plan.Warmup)
	return nil
}

// window measures one window of lv and adds it to lv's tally.
func (e *engine) window(ctx context.Context, lv *live, label string) error {
	var (
		mu     sync.Mutex
		w      windowSample
		perf   counters.PerfSession
		opened bool
		every  *dbSampler
	)
	srv := lv.srv
	hooks := load.Hooks{
		MeasureStart: func() {
			mu.Lock()
			defer mu.Unlock()
			opened = true
			w.i0, _ = srv.Info()
			w.u0, w.uerr = srv.Usage()
			w.db0 = e.sampleDB()
			every = e.startDBSampler(srv)
			w.t0 = time.Now()
			if e.plan.Perf {
				perf, w.perfErr = counters.StartPerf(srv.pid())
			}
		},
		MeasureEnd: func() {
			mu.Lock()
			defer mu.Unlock()
			if !opened || w.closed {
				return
			}
			w.closed = true
			w.t1 = time.Now()
			w.db1 = e.sampleDB()
			w.series = every.stop()
			every = nil
			var uerr error
			w.u1, uerr = srv.Usage()
			w.uerr = errors.Join(w.uerr, uerr)
			w.i1, _ = srv.Info()
			if perf != nil {
				w.perf, w.perfErr = perf.Stop()
				perf = nil
			}
		},
		Progress: func(p load.Progress) {
			phase := "measuring"
			if p.Phase == "warmup" {
				phase = "warm-up"
			}
			e.prog.Status(label, phase, p.Elapsed, p.Rate, rateUnit(lv.rs.sc))
		},
	}
	res, err := lv.drive(lv.ctx, lv.ramp, e.plan.Duration, hooks)
	mu.Lock()
	if perf != nil { // MeasureEnd never came (the load failed): close the counters
		perf.Stop()
	}
	every.stop()
	mu.Unlock()
	w.res = res
	lv.tally.add(w, e)
	if err != nil || lv.died() || ctx.Err() != nil {
		return e.failure(ctx, lv, "the measurement", err)
	}
	return nil
}

// finish reads what is read after the windows (peak RSS; heap and threads through the info
// route, never requested under load) and stops the server.
func (e *engine) finish(ctx context.Context, lv *live, run *session.Run) error {
	if u, err := lv.srv.Usage(); err == nil {
		run.PeakRSSMiB = mib(u.PeakRSSBytes)
		if run.RSSMiB == 0 {
			run.RSSMiB = mib(u.RSSBytes)
		}
	}
	if inf, err := lv.srv.Info(); err == nil {
		if inf.HeapBytes > 0 {
			run.HeapMiB = mib(inf.HeapBytes)
		}
		run.Threads = inf.Threads
	}
	if lv.died() {
		return e.failure(ctx, lv, "the measurement", nil)
	}
	lv.cancel()
	e.stop(lv.srv)
	return nil
}

// windowSample is what one window's hooks read.
type windowSample struct {
	res     *load.Result
	t0, t1  time.Time
	u0, u1  procfs.Usage
	i0, i1  targets.Info
	uerr    error
	closed  bool
	perf    counters.Totals
	perfErr error
	db0     dbSample // PostgreSQL and the load generator, at the window's edges
	db1     dbSample
	series  session.DBSeries // once a second during the window
}

// tally sums a run's windows.
type tally struct {
	responses               int64
	elapsed                 time.Duration
	cpu, wall               float64
	sampled                 bool
	rss                     int64
	hist                    *hdrhistogram.Histogram
	lat                     []load.Latency // per window, when the load generator keeps no histogram (wrk)
	errs                    map[string]int64
	clientPerRead, inFlight float64 // response-weighted sums
	server                  map[string]float64
	perf                    counters.Totals
	perfErr                 error
	windows                 []float64
	startupMs               float64
	db                      dbTally
	open                    *openTally // open loop only
}

func (t *tally) add(w windowSample, e *engine) {
	if w.res == nil {
		return
	}
	r := w.res
	t.responses += r.Responses
	t.elapsed += r.Elapsed
	t.windows = append(t.windows, round2(r.RPS))
	t.addOpen(r)
	if r.Hist != nil {
		if t.hist == nil {
			t.hist = load.NewHistogram()
		}
		t.hist.Merge(r.Hist)
	} else {
		t.lat = append(t.lat, r.Latency)
	}
	for k, v := range r.Errors {
		if v != 0 {
			if t.errs == nil {
				t.errs = map[string]int64{}
			}
			t.errs[k] += v
		}
	}
	if c := r.Client; c != nil {
		t.clientPerRead += c.ResponsesPerRead * float64(r.Responses)
		t.inFlight += c.BatchesInFlight * float64(r.Responses)
	}
	for k, v := range w.i1.PerResponse(w.i0, r.Responses) {
		if t.server == nil {
			t.server = map[string]float64{}
		}
		t.server[k] += v * float64(r.Responses)
	}
	if w.closed && w.uerr == nil {
		t.cpu += w.u1.CPUSeconds - w.u0.CPUSeconds
		t.wall += w.t1.Sub(w.t0).Seconds()
		t.sampled = true
		if t.rss == 0 {
			t.rss = w.u0.RSSBytes
		}
	} else if w.uerr != nil {
		e.prog.Logf("warning: server CPU/RSS not sampled: %v", w.uerr)
	}
	t.db.add(w)
	t.perfErr = errors.Join(t.perfErr, w.perfErr)
	if w.closed && w.perfErr == nil && w.perf.Values != nil {
		if t.perf.Values == nil {
			t.perf = counters.Totals{Values: map[string]float64{}, Unsupported: map[string]string{}}
		}
		for k, v := range w.perf.Values {
			t.perf.Values[k] += v
		}
		for k, v := range w.perf.Unsupported {
			t.perf.Unsupported[k] = v
		}
		t.perf.Window += w.perf.Window
	}
}

// into writes the tally's figures into run.
func (t *tally) into(run *session.Run, e *engine) {
	run.StartupMs = t.startupMs
	run.Responses, run.DurationS = t.responses, t.elapsed.Seconds()
	if t.elapsed > 0 {
		run.RPS = float64(t.responses) / t.elapsed.Seconds()
	}
	if len(t.windows) > 1 {
		run.Windows = t.windows
	}
	if t.hist != nil {
		l := load.Summarize(t.hist)
		run.P50Ms, run.P95Ms, run.P99Ms, run.P999Ms, run.MaxMs = l.P50, l.P95, l.P99, l.P999, l.Max
		run.Hist = encodeHist(t.hist, e)
	} else if len(t.lat) > 0 { // wrk: the median window's percentiles
		l := medianLatency(t.lat)
		run.P50Ms, run.P95Ms, run.P99Ms, run.P999Ms, run.MaxMs = l.P50, l.P95, l.P99, l.P999, l.Max
	}
	run.Open = t.openRun()
	run.ErrorsByKind, run.Errors = t.errs, 0
	for _, v := range t.errs {
		run.Errors += v
	}
	if t.responses > 0 {
		n := float64(t.responses)
		run.ClientRespPerRead, run.ClientInFlight = round2(t.clientPerRead/n), round2(t.inFlight/n)
		if t.server != nil {
			per := map[string]float64{}
			for k, v := range t.server {
				per[k] = v / n
			}
			run.Server = counters.RoundMap(per)
		}
	}
	if t.sampled && t.wall > 0 {
		run.ServerCPUPct = round2(t.cpu / t.wall * 100)
		allotted := e.plan.allottedCores()
		if q := e.resolved[run.Target].CPUQuotaPct; q > 0 {
			allotted *= float64(q) / 100 // a capped server is saturated at its cap
		}
		// An open loop leaves the server unsaturated on purpose: the rate, not the client, set it.
		run.ClientBound = t.open == nil && run.ServerCPUPct < ClientBoundFraction*100*allotted
		if t.cpu > 0 {
			run.RPSPerCPUSecond = round2(float64(t.responses) / t.cpu)
		}
		run.RSSMiB = mib(t.rss)
	}
	t.db.into(run, e)
	if e.plan.Perf {
		if t.perfErr != nil {
			e.unsupported["perf"] = t.perfErr.Error()
		} else if t.perf.Values != nil {
			run.Counters = counters.PerResponse(t.perf, run.Responses)
			for k, why := range t.perf.Unsupported {
				e.unsupported[k] = why
			}
		}
	}
}

// medianLatency is the per-percentile median of windows' latencies.
func medianLatency(ls []load.Latency) load.Latency {
	pick := func(f func(load.Latency) float64) float64 {
		xs := make([]float64, len(ls))
		for i, l := range ls {
			xs[i] = f(l)
		}
		return stats.Median(xs)
	}
	return load.Latency{P50: pick(func(l load.Latency) float64 { return l.P50 }), P95: pick(func(l load.Latency) float64 { return l.P95 }),
		P99: pick(func(l load.Latency) float64 { return l.P99 }), P999: pick(func(l load.Latency) float64 { return l.P999 }),
		Max: pick(func(l load.Latency) float64 { return l.Max })}
}

// sampleMachine reads the machine's busy and stolen time before a run or pair.
func (e *engine) sampleMachine(ctx context.Context, label string) (busy, steal float64, err error) {
	if e.plan.BusySample <= 0 {
		return 0, 0, nil
	}
	e.prog.Status(label, "sampling the machine", 0, 0, "")
	busy, steal, err = machine.SampleBusy(ctx, e.plan.BusySample)
	if err != nil && ctx.Err() != nil {
		return 0, 0, ErrInterrupted
	}
	return round2(busy), round2(steal), nil
}

// measure runs one fresh server process in one window: start, verify, warm up, settle,
// measure, stop. The returned Run carries what was measured even when err != nil (Run.Error
// is then set).
func (e *engine) measure(ctx context.Context, rs runSpec) (run session.Run, err error) {
	run = session.Run{Target: rs.target, Scenario: rs.sc.Name, Slot: rs.slot, ArtifactBytes: e.artefact[rs.target]}
	defer func() {
		if err != nil {
			run.Error = err.Error()
			run.ClientBound = false // a cut-short window says nothing about saturation
		}
	}()
	if ctx.Err() != nil {
		return run, ErrInterrupted
	}
	if run.BusyPct, run.StealPct, err = e.sampleMachine(ctx, rs.label); err != nil {
		return run, err
	}
	lv, err := e.launch(ctx, rs)
	if lv != nil {
		defer func() { lv.cancel(); e.stop(lv.srv) }()
	}
	if err != nil {
		return run, err
	}
	if err = e.warm(ctx, lv); err == nil {
		err = e.window(ctx, lv, rs.label)
	}
	lv.tally.into(&run, e)
	if err != nil {
		return run, err
	}
	if err = e.finish(ctx, lv, &run); err != nil {
		return run, err
	}
	e.logRun(rs, run)
	return run, nil
}

func (e *engine) logRun(rs runSpec, run session.Run) {
	e.prog.Logf("%s: %s %s  p99 %.2f ms  server CPU %.0f%%  errors %d", rs.label, Thousands(run.RPS), rateUnit(rs.sc), run.P99Ms, run.ServerCPUPct, run.Errors)
}

// measurePair runs a pair the interleaved way: both servers (seq[0] first) started, verified
// and warmed up, then K windows each in the order A B B A A B …, then both stopped. Runs come
// back in seq's order and carry what was measured even on an error.
func (e *engine) measurePair(ctx context.Context, seq [2]runSpec) (runs [2]session.Run, err error) {
	for i, rs := range seq {
		runs[i] = session.Run{Target: rs.target, Scenario: rs.sc.Name, Slot: rs.slot, ArtifactBytes: e.artefact[rs.target]}
	}
	var lvs [2]*live
	var finished [2]bool
	defer func() {
		for i, lv := range lvs {
			if lv != nil && !finished[i] {
				lv.tally.into(&runs[i], e)
				lv.cancel()
				e.stop(lv.srv)
			}
			if err != nil && runs[i].Error == "" {
				runs[i].Error = err.Error()
				runs[i].ClientBound = false
			}
		}
	}()
	if ctx.Err() != nil {
		return runs, ErrInterrupted
	}
	busy, steal, err := e.sampleMachine(ctx, seq[0].label)
	if err != nil {
		return runs, err
	}
	for i := range seq {
		runs[i].BusyPct, runs[i].StealPct = busy, steal
		if lvs[i], err = e.launch(ctx, seq[i]); err != nil {
			return runs, err
		}
	}
	for _, lv := range lvs {
		if err = e.warm(ctx, lv); err != nil {
			return runs, err
		}
	}
	for w := 0; w < e.plan.Windows; w++ {
		for k := 0; k < 2; k++ {
			i := k ^ (w % 2) // A B, then B A, ...
			label := fmt.Sprintf("%s window %d/%d", seq[i].label, w+1, e.plan.Windows)
			if err = e.window(ctx, lvs[i], label); err != nil {
				return runs, err
			}
		}
	}
	for i, lv := range lvs {
		lv.tally.into(&runs[i], e)
		if err = e.finish(ctx, lv, &runs[i]); err != nil {
			return runs, err
		}
		finished[i] = true
		e.logRun(seq[i], runs[i])
	}
	return runs, nil
}
