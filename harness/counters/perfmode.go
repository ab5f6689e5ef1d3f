package counters

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// PerfOptions shape a perf-mode measurement. Zero values take the defaults.
type PerfOptions struct {
	Connections  int           // default 100
	Pipelining   int           // default 10
	Workers      int           // default 1
	Warmup       time.Duration // default 2 s; excluded (counters are off)
	Duration     time.Duration // measured window, default 5 s
	CPUs         string        // server taskset list, "" = not pinned
	Threads      int
	StartTimeout time.Duration // default 30 s
	Timeout      time.Duration // load generator's dial/per-batch timeout, default 10 s
	DB           Backend       // a database scenario's trial database; nil for the others
	Log          io.Writer
	// Sample, when set, also samples the server's threads with perf record during the window
	// (Sampler). Where that is not possible the result says why and the counters stand.
	Sample *SamplerOptions
}

// withDefaults fills what o leaves zero.
func (o PerfOptions) withDefaults() PerfOptions {
	orDefault(&o.Connections, 100)
	orDefault(&o.Pipelining, 10)
	orDefault(&o.Workers, 1)
	orDefault(&o.Warmup, 2*time.Second)
	orDefault(&o.Duration, 5*time.Second)
	orDefault(&o.StartTimeout, 30*time.Second)
	orDefault(&o.Timeout, 10*time.Second)
	return o
}

// orDefault sets *v to def when it is not positive.
func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// PerfResult is one fresh server measured over one window.
type PerfResult struct {
	Target, Scenario string
	Responses        int64 // counted in the window
	Totals           Totals
	PerResponse      map[string]float64
	ServerCPUSeconds float64 // utime+stime of all the server's threads over the window (/proc)
	Load             *load.Result
	Sample           *SampleTable // with PerfOptions.Sample: where the window's CPU time went
	SampleError      string       // with PerfOptions.Sample: why there is no Sample
}

// Perf starts a fresh server, warms it up, and counts its threads over the load generator's
// measurement window only (StartPerf at MeasureStart, Stop at MeasureEnd), divided by the
// responses counted in that window.
func Perf(ctx context.Context, t *targets.Target, sc scenario.Scenario, o PerfOptions) (*PerfResult, error) {
	o = o.withDefaults()
	if err := checkBackend(t, o.DB, sc); err != nil {
		return nil, err
	}
	srv, err := t.Start(ctx, targets.StartOptions{Threads: o.Threads, CPUs: o.CPUs, StartTimeout: o.StartTimeout, Log: o.Log, Env: backendEnv(o.DB)})
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", t.Name, err)
	}
	defer srv.Stop()

	var (
		sess             PerfSession
		startErr, endErr error
		totals           Totals
		cpu0, cpu1       float64
		cpuErr           error
	)
	smp := StartSampling(srv.Pid, o.Sample)
	defer smp.Close()
	hooks := load.Hooks{
		MeasureStart: func() {
			if u, err := srv.Usage(); err == nil {
				cpu0 = u.CPUSeconds
			} else {
				cpuErr = err
			}
			smp.Enable()
			sess, startErr = StartPerf(srv.Pid)
		},
		MeasureEnd: func() {
			if sess == nil {
				return
			}
			totals, endErr = sess.Stop()
			smp.Disable()
			if u, err := srv.Usage(); err == nil {
				cpu1 = u.CPUSeconds
			} else {
				cpuErr = err
			}
		},
	}
	addr := srv.Addr()
	cfg := load.ForScenario(sc, addr)
	cfg.Build = backendRequests(o.DB, sc, addr)
	cfg.Connections, cfg.Pipelining, cfg.Workers = o.Connections, o.Pipelining, o.Workers
	cfg.Warmup, cfg.Duration, cfg.Timeout = o.Warmup, o.Duration, o.Timeout
	lr, err := load.Run(ctx, cfg, hooks)
	if sess != nil && totals.Values == nil && endErr == nil {
		totals, endErr = sess.Stop() // the window never closed (load failed): release the events
	}
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	if startErr != nil {
		return nil, fmt.Errorf("perf: %w", startErr)
	}
	if sess == nil {
		return nil, fmt.Errorf("perf: the load generator never opened a measurement window")
	}
	if endErr != nil {
		return nil, fmt.Errorf("perf: %w", endErr)
	}
	res := &PerfResult{Target: t.Name, Scenario: sc.Name, Responses: lr.Responses, Totals: totals, Load: lr}
	if cpuErr == nil {
		res.ServerCPUSeconds = cpu1 - cpu0
	}
	if errs := errorCount(lr.Errors); errs > 0 {
		res.Totals.Notes = append(res.Totals.Notes, fmt.Sprintf("the load generator saw %d errors (%v) in the window", errs, lr.Errors))
	}
	res.PerResponse = PerResponse(totals, lr.Responses)
	res.Sample, res.SampleError = smp.Finish(lr.Responses)
	return res, nil
}
