package measure

import (
	"context"
	"fmt"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
)

// PerfOptions shape a perf_event count. Zero values take the defaults.
type PerfOptions struct {
	Connections  int           // default 100
	Pipelining   int           // default 10
	Workers      int           // default 1
	Warmup       time.Duration // default 2 s; excluded (counters are off)
	Duration     time.Duration // measured window, default 5 s
	StartTimeout time.Duration // 0: the plan's
	Timeout      time.Duration // load generator's dial/per-batch timeout, default 10 s
	// Sample, when set, also samples the server's threads with perf record during the window
	// (counters.Sampler). Where that is not possible the result says why and the counters stand.
	Sample *counters.SamplerOptions
}

func (o PerfOptions) withDefaults() PerfOptions {
	orDefault(&o.Connections, 100)
	orDefault(&o.Pipelining, 10)
	orDefault(&o.Workers, 1)
	orDefault(&o.Warmup, 2*time.Second)
	orDefault(&o.Duration, 5*time.Second)
	orDefault(&o.Timeout, 10*time.Second)
	return o
}

// PerfResult is one fresh server counted over one window.
type PerfResult struct {
	Responses        int64 // counted in the window
	Totals           counters.Totals
	PerResponse      map[string]float64
	ServerCPUSeconds float64               // utime+stime of all the server's threads over the window (/proc)
	Sample           *counters.SampleTable // with PerfOptions.Sample: where the window's CPU time went
	SampleError      string                // with PerfOptions.Sample: why there is no Sample
}

// Perf starts a fresh server, warms it up, and counts its threads over the load generator's
// measurement window only (counters.StartPerf at MeasureStart, Stop at MeasureEnd), divided by
// the responses counted in that window.
func (c Counter) Perf(ctx context.Context, target string, sc scenario.Scenario, o PerfOptions) (*PerfResult, error) {
	o = o.withDefaults()
	srv, err := c.start(ctx, target, sc, nil, nil, o.StartTimeout)
	if err != nil {
		return nil, err
	}
	defer c.r.servers.stop(srv)

	var (
		sess             counters.PerfSession
		startErr, endErr error
		totals           counters.Totals
		cpu0, cpu1       float64
		cpuErr           error
	)
	smp := counters.StartSampling(srv.Pid(), o.Sample)
	defer smp.Close()
	cpuNow := func(into *float64) {
		if u, err := srv.Usage(); err == nil {
			*into = u.CPUSeconds
		} else {
			cpuErr = err
		}
	}
	hooks := load.Hooks{
		MeasureStart: func() {
			cpuNow(&cpu0)
			smp.Enable()
			sess, startErr = counters.StartPerf(srv.Pid())
		},
		MeasureEnd: func() {
			if sess == nil {
				return
			}
			totals, endErr = sess.Stop()
			smp.Disable()
			cpuNow(&cpu1)
		},
	}
	addr := srv.Addr()
	cfg := load.ForScenario(sc, addr)
	cfg.Build = c.r.backend.Requests(sc, addr)
	cfg.Connections, cfg.Pipelining, cfg.Workers = o.Connections, o.Pipelining, o.Workers
	cfg.Warmup, cfg.Duration, cfg.Timeout = o.Warmup, o.Duration, o.Timeout
	lr, err := load.Run(ctx, cfg, hooks)
	if sess != nil && totals.Values == nil && endErr == nil {
		totals, endErr = sess.Stop() // the window never closed (load failed): release the events
	}
	switch {
	case err != nil:
		return nil, fmt.Errorf("load: %w", err)
	case startErr != nil:
		return nil, fmt.Errorf("perf: %w", startErr)
	case sess == nil:
		return nil, fmt.Errorf("perf: the load generator never opened a measurement window")
	case endErr != nil:
		return nil, fmt.Errorf("perf: %w", endErr)
	}
	res := &PerfResult{Responses: lr.Responses, Totals: totals}
	if cpuErr == nil {
		res.ServerCPUSeconds = cpu1 - cpu0
	}
	if errs := errorCount(lr.Errors); errs > 0 {
		res.Totals.Notes = append(res.Totals.Notes, fmt.Sprintf("the load generator saw %d errors (%v) in the window", errs, lr.Errors))
	}
	res.PerResponse = counters.PerResponse(totals, lr.Responses)
	res.Sample, res.SampleError = smp.Finish(lr.Responses)
	return res, nil
}
