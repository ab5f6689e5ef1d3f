// Package load is bindrace's load generator: a closed loop over C connections with P
// pipelined requests in flight on each, counting complete responses only and recording each
// request's latency (its response's arrival minus the write of its batch) in an HDR histogram.
//
// It is built like wrk, because it must drive at least wrk's rate against the same server on
// the same CPUs: a few workers, each a goroutine running its own epoll loop over non-blocking
// sockets with raw syscalls, a response framer that never copies or allocates, and no shared
// state on the hot path beyond two read-mostly atomics marking the measured window.
//
// Linux only (epoll).
package load

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// DefaultTimeout applies when Config.Timeout is zero.
const DefaultTimeout = 5 * time.Second

type Config struct {
	Addr        string        // host:port
	Requests    [][]byte      // request bytes, sent round-robin (usually one scenario request)
	Connections int           // default 100
	Pipelining  int           // requests in flight per connection, written in one batch; default 1
	Workers     int           // goroutines, each with its own event loop; default GOMAXPROCS
	Warmup      time.Duration // excluded from every figure
	Duration    time.Duration // measured window
	Count       int64         // > 0: send exactly Count requests in all, no warm-up, then stop
	Timeout     time.Duration // dial and per-batch response timeout; default DefaultTimeout
}

type Hooks struct {
	MeasureStart func()         // called right before the measured window opens (after warm-up)
	MeasureEnd   func()         // called right after it closes, before connections are torn down
	Progress     func(Progress) // about once a second, from Run's goroutine
}

// Progress is a snapshot of a running load.
type Progress struct {
	Phase     string        // "warmup", "measure" or "count"
	Elapsed   time.Duration // since the phase began
	Responses int64         // in this phase so far
	Rate      float64       // responses/s over the last interval
}

type Result struct {
	Responses int64            `json:"responses"` // complete responses that arrived in the window (non-2xx included)
	Elapsed   time.Duration    `json:"-"`         // length of the measured window
	RPS       float64          `json:"rps"`
	Latency   Latency          `json:"latency"`
	Errors    map[string]int64 `json:"errors_by_kind"` // by kind: connect, read, write, timeout, malformed, closed, status_NNN
	BytesRead int64            `json:"bytes_read"`
	// Reconnects counts connections opened in the window to replace closed ones (server
	// closes, announced or not, and errors). A refinement of ARCHITECTURE.md's Result: a
	// server that closes connections pays for it, and the report should be able to say so.
	Reconnects int64                   `json:"reconnects"`
	Hist       *hdrhistogram.Histogram `json:"-"` // µs, merged across workers
}

// ErrorCount is the sum of Errors.
func (r *Result) ErrorCount() int64 {
	var n int64
	for _, v := range r.Errors {
		n += v
	}
	return n
}

// Run drives the load and returns what was measured. Duration mode: warm-up, then the
// measured window, with the hooks at its edges. Count mode: exactly Count requests, all
// measured, returning once every one is answered (or lost to an error: then the error wraps
// ErrIncomplete). If ctx ends first, Run stops within about 10 ms and returns the partial
// Result with an error wrapping ErrIncomplete and ctx.Err().
func Run(ctx context.Context, cfg Config, h Hooks) (*Result, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	r, err := newRunner(cfg)
	if err != nil {
		return nil, err
	}
	// One plain dial first: a target that is not there is a clear error, not a run of
	// connect errors.
	d := net.Dialer{Timeout: cfg.Timeout}
	probe, err := d.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("%w to %s: %v", ErrConnect, cfg.Addr, err)
	}
	probe.Close()

	workers := make([]*worker, cfg.Workers)
	defer func() {
		for _, w := range workers {
			if w != nil {
				w.shutdown()
			}
		}
	}()
	for i := range workers {
		nconns := cfg.Connections/cfg.Workers + btoi(i < cfg.Connections%cfg.Workers)
		var share int64
		if r.countMode {
			share = cfg.Count/int64(cfg.Workers) + int64(btoi(int64(i) < cfg.Count%int64(cfg.Workers)))
		}
		if workers[i], err = newWorker(r, nconns, share); err != nil {
			return nil, fmt.Errorf("load: %w", err)
		}
	}

	call := func(f func()) {
		if f != nil {
			f()
		}
	}
	phase := "warmup"
	if r.countMode {
		phase = "count"
	}
	if r.countMode || cfg.Warmup == 0 {
		call(h.MeasureStart)
		markEdge(&r.winStart)
		if phase == "warmup" {
			phase = "measure"
		}
	}

	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); w.run() }()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	total := func() (n int64) {
		for _, w := range workers {
			n += w.progress.Load()
		}
		return n
	}
	phaseStart, phaseBase := time.Now(), int64(0)
	edge := time.NewTimer(cfg.Warmup)
	switch {
	case r.countMode:
		edge.Stop()
	case phase == "measure":
		edge.Reset(cfg.Duration)
	}
	defer edge.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	lastTick, lastTotal := time.Now(), int64(0)

	var runErr error
loop:
	for {
		select {
		case <-ctx.Done():
			runErr = fmt.Errorf("%w: %w", ErrIncomplete, ctx.Err())
			break loop
		case <-finished: // Count mode: every request settled
			break loop
		case <-edge.C:
			if phase == "warmup" {
				call(h.MeasureStart)
				markEdge(&r.winStart)
				phase, phaseStart, phaseBase = "measure", time.Now(), total()
				edge.Reset(cfg.Duration)
				continue
			}
			break loop
		case now := <-tick.C:
			n := total()
			if h.Progress != nil {
				h.Progress(Progress{Phase: phase, Elapsed: max(0, now.Sub(phaseStart)), Responses: n - phaseBase,
					Rate: float64(n-lastTotal) / now.Sub(lastTick).Seconds()})
			}
			lastTick, lastTotal = now, n
		}
	}
	if r.winStart.Load() != 0 {
		markEdge(&r.winEnd)
		call(h.MeasureEnd)
	}
	r.stop.Store(true)
	<-finished

	res := merge(r, workers)
	if r.countMode && runErr == nil {
		var lost int64
		for _, w := range workers {
			lost += w.lost
		}
		if lost > 0 {
			runErr = fmt.Errorf("%w: %d of %d requests got no response", ErrIncomplete, lost, cfg.Count)
		}
	}
	return res, runErr
}

func merge(r *runner, workers []*worker) *Result {
	var c counts
	hist := newHistogram()
	for _, w := range workers {
		c.add(&w.counts)
		hist.Merge(w.hist)
	}
	res := &Result{Responses: c.responses, BytesRead: c.bytes, Reconnects: c.reconnects, Hist: hist, Latency: summarize(hist)}
	res.Errors = c.errorMap()
	if s, e := r.winStart.Load(), r.winEnd.Load(); s != 0 && e > s {
		res.Elapsed = time.Duration(e - s)
		res.RPS = float64(res.Responses) / res.Elapsed.Seconds()
	}
	return res
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
