// Package engine is bindrace's load generator: one connection engine with the protocol's
// framing plugged in, the way wrk's socket handlers are. It drives HTTP/1.1 requests (a closed
// loop over C connections with P pipelined requests in flight on each) or WebSocket echoes
// (the same loop over upgraded connections, P binary messages in flight), counting complete
// answers only and recording each one's latency (its arrival minus its own request's send
// time) in an HDR histogram. harness/load is its public face.
//
// It is built like wrk, because it must drive at least wrk's rate against the same server on
// the same CPUs: a few workers, each a goroutine running its own epoll loop over non-blocking
// sockets with raw syscalls, framers that never copy or allocate, and no shared state on the
// hot path beyond two read-mostly atomics marking the measured window.
//
// The engine owns everything but the bytes: connecting and reconnecting, the measured window,
// warm-up and Count mode, timeouts, progress, errors and the tally. A protocol (http.go, ws.go)
// renders the requests of a batch and frames what comes back.
//
// Linux only (epoll).
package engine

import (
	"context"
	"fmt"
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// defaultTimeout applies when Config.Timeout is zero.
const defaultTimeout = 5 * time.Second

// Protocol is what a load speaks.
type Protocol uint8

const (
	HTTP      Protocol = iota // HTTP/1.1 requests (Config.Requests), responses counted
	WebSocket                 // binary messages on upgraded connections, echoes counted
)

// UnitMessages is Result.Unit for WebSocket loads: RPS counts echoed messages per second.
const UnitMessages = "messages/s"

type Config struct {
	Protocol Protocol
	Addr     string    // host:port
	Requests [][]byte  // HTTP: request bytes, sent round-robin (usually one scenario request)
	Build    BuildFunc // HTTP: renders every request instead of Requests (e.g. a key per request)
	Host     string    // WebSocket: Host header; default Addr
	Path     string    // WebSocket: upgrade path; default scenario.WSPath
	Size     int       // WebSocket: payload bytes per message; default scenario.WSMessageSize

	Connections int           // default 100
	Pipelining  int           // requests in flight per connection, written in one batch; default 1
	Workers     int           // goroutines, each with its own event loop; default GOMAXPROCS
	Warmup      time.Duration // excluded from every figure
	Duration    time.Duration // measured window
	Count       int64         // > 0: send exactly Count requests in all, no warm-up, then stop
	Timeout     time.Duration // dial, upgrade and per-request answer timeout; default 5 s

	// Rate > 0 makes the loop open: requests per second in all, each with an intended send
	// time spaced by Arrival, over the fixed Connections, each carrying up to Pipelining in
	// flight. A request whose connection is busy waits in the generator, and its latency
	// counts from its intended time, so a stalling server cannot hide (no coordinated
	// omission).
	Rate         float64
	Arrival      Arrival
	LagTolerance time.Duration // send lag p99 above which the run is generator-bound; default 1 ms
}

// Arrival is how an open loop spaces its requests' intended send times.
type Arrival uint8

const (
	Uniform Arrival = iota // evenly, 1/Rate apart
	Poisson                // exponential gaps of mean 1/Rate: a Poisson process
)

func (a Arrival) String() string {
	switch a {
	case Uniform:
		return "uniform"
	case Poisson:
		return "poisson"
	}
	return "arrival " + strconv.Itoa(int(a))
}

// Hooks are called at the edges of the measured window and with progress.
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

// Result is what a load measured. For WebSocket loads Responses counts echoed messages, RPS
// is messages per second and Unit says so.
type Result struct {
	Responses int64            `json:"responses"` // complete responses that arrived in the window (non-2xx included)
	Elapsed   time.Duration    `json:"-"`         // length of the measured window
	RPS       float64          `json:"rps"`
	Unit      string           `json:"unit,omitempty"` // what RPS counts when not HTTP responses/s: "messages/s"
	Latency   Latency          `json:"latency"`
	Errors    map[string]int64 `json:"errors_by_kind"` // by kind: connect, read, write, timeout, malformed, closed, status_NNN, …
	BytesRead int64            `json:"bytes_read"`
	// Reconnects counts connections opened in the window to replace closed ones (server
	// closes, announced or not, and errors): a server that closes connections pays for it.
	Reconnects int64                   `json:"reconnects"`
	Client     *ClientStats            `json:"client,omitempty"`    // HTTP load only
	Open       *OpenLoop               `json:"open_loop,omitempty"` // open loop (Config.Rate) only
	Hist       *hdrhistogram.Histogram `json:"-"`                   // µs, merged across workers
}

// OpenLoop is what an open loop says about itself: the rate asked and achieved, and how late
// the generator sent. Send lag is actual minus intended send time, for requests whose
// connection was free at their intended time (the others waited for the server, and that
// shows in their latency); when its p99 is above the tolerance, the generator did not keep to
// the schedule and the run measured the generator, not the server.
type OpenLoop struct {
	Rate           float64                 `json:"rate"` // asked, requests per second in all
	Arrival        string                  `json:"arrival"`
	Sent           int64                   `json:"sent"`     // requests sent in the window
	SentRate       float64                 `json:"sent_rps"` // Sent per second of the window: the achieved rate
	Lag            Latency                 `json:"lag"`
	LagHist        *hdrhistogram.Histogram `json:"-"` // µs, the send lags Lag summarises: merged across hosts
	LagTolerance   time.Duration           `json:"-"`
	GeneratorBound bool                    `json:"generator_bound"`
	CPUPct         float64                 `json:"generator_cpu_pct"` // the generator process's CPU time in the window, % of one core
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
// Result with an error wrapping ErrIncomplete and ctx.Err(). WebSocket connections still open
// at the end are closed with a close frame (1000), waiting up to a second for the server's.
func Run(ctx context.Context, cfg Config, h Hooks) (*Result, error) {
	cfg, err := cfg.Normalized()
	if err != nil {
		return nil, err
	}
	r, err := newRunner(cfg)
	if err != nil {
		return nil, err
	}
	// One exchange first: a target that is not there (or does not upgrade) is one clear error,
	// not a run made of connect errors.
	if err := r.proto.probe(ctx, cfg); err != nil {
		return nil, err
	}
	r.schedule = nanotime()
	workers, err := newWorkers(r)
	if err != nil {
		return nil, fmt.Errorf("load: %w", err)
	}
	defer shutdown(workers)
	runErr := drive(ctx, r, h, workers)
	closeAll(workers, min(cfg.Timeout, time.Second))
	return r.result(workers, runErr)
}

// result merges what the workers counted once they have returned.
func (r *runner) result(workers []*worker, runErr error) (*Result, error) {
	hist := NewHistogram()
	var c counts
	var measured, lost int64
	for _, w := range workers {
		measured += w.measured
		lost += w.lost
		hist.Merge(w.hist)
		c.add(&w.counts)
	}
	res := &Result{Responses: measured, Hist: hist, Latency: Summarize(hist)}
	r.win.finish(res)
	res.BytesRead, res.Reconnects, res.Errors = c.bytes, c.reconnects, c.errorMap()
	if r.open {
		res.Open = r.openResult(workers, res.Elapsed)
	}
	if r.cfg.Protocol == WebSocket {
		res.Unit = UnitMessages
	} else if c.reads > 0 && c.wakeups > 0 {
		res.Client = &ClientStats{Reads: c.reads, Wakeups: c.wakeups,
			ResponsesPerRead: float64(res.Responses) / float64(c.reads),
			BatchesInFlight:  float64(c.inFlight) / float64(c.wakeups)}
	}
	if r.countMode && runErr == nil && lost > 0 {
		runErr = fmt.Errorf("%w: %s", ErrIncomplete, r.proto.lost(lost, r.cfg.Count))
	}
	return res, runErr
}
