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

// Shape is the part of c that says how the load is driven.
func (c Config) Shape() Shape {
	return Shape{Connections: c.Connections, Pipelining: c.Pipelining, Workers: c.Workers, Warmup: c.Warmup,
		Duration: c.Duration, Count: c.Count, Timeout: c.Timeout}
}

func (c *Config) setShape(s Shape) {
	c.Connections, c.Pipelining, c.Workers, c.Warmup = s.Connections, s.Pipelining, s.Workers, s.Warmup
	c.Duration, c.Count, c.Timeout = s.Duration, s.Count, s.Timeout
}

// Hooks are called at the edges of the measured window and with progress; harness/wsload
// takes the same.
type Hooks struct {
	MeasureStart func()         // called right before the measured window opens (after warm-up)
	MeasureEnd   func()         // called right after it closes, before connections are torn down
	Progress     func(Progress) // about once a second, from Run's goroutine
}

// Progress is a snapshot of a running load (of HTTP responses, or of WebSocket echoes).
type Progress struct {
	Phase     string        // "warmup", "measure" or "count"
	Elapsed   time.Duration // since the phase began
	Responses int64         // in this phase so far
	Rate      float64       // responses (or messages) per second over the last interval
}

// Result is what a load measured. harness/wsload returns it too: then Responses counts echoed
// messages, RPS is messages per second and Unit says so.
type Result struct {
	Responses int64            `json:"responses"` // complete responses that arrived in the window (non-2xx included)
	Elapsed   time.Duration    `json:"-"`         // length of the measured window
	RPS       float64          `json:"rps"`
	Unit      string           `json:"unit,omitempty"` // what RPS counts when not HTTP responses/s: "messages/s"
	Latency   Latency          `json:"latency"`
	Errors    map[string]int64 `json:"errors_by_kind"` // by kind: connect, read, write, timeout, malformed, closed, status_NNN
	BytesRead int64            `json:"bytes_read"`
	// Reconnects counts connections opened in the window to replace closed ones (server
	// closes, announced or not, and errors). A refinement of ARCHITECTURE.md's Result: a
	// server that closes connections pays for it, and the report should be able to say so.
	Reconnects int64                   `json:"reconnects"`
	Client     *ClientStats            `json:"client,omitempty"` // HTTP load only
	Hist       *hdrhistogram.Histogram `json:"-"`                // µs, merged across workers
}

// ClientStats is how the load arrived, as the client saw it in the window: how many responses
// one read brought (the server's batching of its writes), and how many batches were in flight
// when the client woke up (how much the server had to work on at once). Part of a server's
// efficiency depends on these, so two runs with different figures met different loads.
type ClientStats struct {
	Reads            int64   `json:"reads"`
	Wakeups          int64   `json:"wakeups"`
	ResponsesPerRead float64 `json:"responses_per_read"`
	BatchesInFlight  float64 `json:"batches_in_flight"` // mean over wake-ups
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

	sh := cfg.Shape()
	workers, err := NewWorkers(sh, func(n int, share int64) (*worker, error) { return newWorker(r, n, share) })
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	defer Shutdown(workers)
	runErr := Drive(ctx, sh, h, &r.win, workers)

	res, lost := Totals(&r.win, workers)
	var c counts
	for _, w := range workers {
		c.add(&w.counts)
	}
	res.BytesRead, res.Reconnects, res.Errors = c.bytes, c.reconnects, c.errorMap()
	if c.reads > 0 && c.wakeups > 0 {
		res.Client = &ClientStats{Reads: c.reads, Wakeups: c.wakeups,
			ResponsesPerRead: float64(res.Responses) / float64(c.reads),
			BatchesInFlight:  float64(c.inFlight) / float64(c.wakeups)}
	}
	if r.countMode && runErr == nil && lost > 0 {
		runErr = fmt.Errorf("%w: %d of %d requests got no response", ErrIncomplete, lost, cfg.Count)
	}
	return res, runErr
}
