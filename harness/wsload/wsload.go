// Package wsload is bindrace's WebSocket load generator for the ws-echo scenario: C
// connections to ws://host:port/ws, each keeping P binary messages in flight (written as one
// batch of P masked frames, refilled when all P echoes are back: a closed loop), counting
// complete echoes whose payload matches what was sent, and recording each message's round trip
// (arrival of its echo minus the write of its batch) in an HDR histogram.
//
// It is built like harness/load, the HTTP generator, for the same reason: it must not be the
// bottleneck against a fast server. A few workers, each a goroutine with its own epoll loop
// over non-blocking sockets driven by raw syscalls; frames prebuilt per connection and
// re-masked in place per batch; echoes compared where they landed in the read buffer; no
// allocation per message and no shared state on the hot path beyond the window marks.
//
// Its Config, Hooks, Progress and Result mirror harness/load's field for field (and JSON name
// for JSON name) so the race orchestrator can drive both the same way. They are separate types
// rather than imports because harness/load's Command dispatches ws:// URLs here: wsload
// importing load would make an import cycle.
//
// Linux only (epoll).
package wsload

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

const (
	// DefaultTimeout applies when Config.Timeout is zero.
	DefaultTimeout = 5 * time.Second
	// DefaultSize is the ws-echo scenario's message size.
	DefaultSize = 64
	// DefaultPath is the ws-echo scenario's endpoint.
	DefaultPath = "/ws"
	// Unit names what Result.RPS counts.
	Unit = "messages/s"
	// maxSize bounds Config.Size: P such messages are prebuilt per connection.
	maxSize = 16 << 20
)

type Config struct {
	Addr        string        // host:port
	Host        string        // Host header; default Addr
	Path        string        // upgrade path; default DefaultPath
	Size        int           // payload bytes per message; default DefaultSize
	Connections int           // default 100
	Pipelining  int           // messages in flight per connection, written in one batch; default 1
	Workers     int           // goroutines, each with its own event loop; default GOMAXPROCS
	Warmup      time.Duration // excluded from every figure
	Duration    time.Duration // measured window
	Count       int64         // > 0: send exactly Count messages in all, no warm-up, then stop
	Timeout     time.Duration // dial, upgrade and per-batch echo timeout; default DefaultTimeout
}

type Hooks struct {
	MeasureStart func()         // called right before the measured window opens (after warm-up)
	MeasureEnd   func()         // called right after it closes, before connections are closed
	Progress     func(Progress) // about once a second, from Run's goroutine
}

// Progress is a snapshot of a running load.
type Progress struct {
	Phase     string        // "warmup", "measure" or "count"
	Elapsed   time.Duration // since the phase began
	Responses int64         // echoed messages in this phase so far
	Rate      float64       // messages/s over the last interval
}

// Result has harness/load.Result's fields and JSON names; Responses counts echoed messages
// and RPS is messages per second (Unit says so in the JSON).
type Result struct {
	Responses int64                   `json:"responses"` // complete, matching echoes that arrived in the window
	Elapsed   time.Duration           `json:"-"`         // length of the measured window
	RPS       float64                 `json:"rps"`       // messages/s
	Unit      string                  `json:"unit"`      // "messages/s"
	Latency   Latency                 `json:"latency"`
	Errors    map[string]int64        `json:"errors_by_kind"` // by kind: see the Kind constants
	BytesRead int64                   `json:"bytes_read"`
	Hist      *hdrhistogram.Histogram `json:"-"` // µs, merged across workers
}

// ErrorCount is the sum of Errors.
func (r *Result) ErrorCount() int64 {
	var n int64
	for _, v := range r.Errors {
		n += v
	}
	return n
}

// runner is what the workers of one Run share: read-only configuration plus the window marks.
type runner struct {
	cfg       Config
	countMode bool
	family    int
	sa        unix.Sockaddr

	// The measured window, in nanotime; 0 = not yet, edgePending = being set right now.
	winStart, winEnd atomic.Int64
	stop             atomic.Bool
}

const edgePending = math.MaxInt64

// inWindow reports whether an event at t (taken before the call) is in the measured window.
// Each edge is published in two steps (pending, then its time), so a worker that still sees
// "not set" took its clock before the edge was taken: t is on the right side of it without a
// race. A worker that sees "pending" waits the few nanoseconds until the time lands.
func (r *runner) inWindow(t int64) bool {
	s := r.winStart.Load()
	for s == edgePending {
		runtime.Gosched()
		s = r.winStart.Load()
	}
	if s == 0 || t < s {
		return false
	}
	e := r.winEnd.Load()
	for e == edgePending {
		runtime.Gosched()
		e = r.winEnd.Load()
	}
	return e == 0 || t <= e
}

func markEdge(a *atomic.Int64) int64 {
	a.Store(edgePending)
	t := nanotime()
	a.Store(t)
	return t
}

// sockaddr returns a fresh copy of the target address. Each worker needs its own: x/sys's
// Connect encodes the address into a buffer inside the Sockaddr value, so one shared value
// is a data race between workers.
func (r *runner) sockaddr() unix.Sockaddr {
	switch sa := r.sa.(type) {
	case *unix.SockaddrInet4:
		return &unix.SockaddrInet4{Port: sa.Port, Addr: sa.Addr}
	case *unix.SockaddrInet6:
		return &unix.SockaddrInet6{Port: sa.Port, ZoneId: sa.ZoneId, Addr: sa.Addr}
	}
	return r.sa
}

func (c Config) normalized() (Config, error) {
	if c.Addr == "" {
		return c, errors.New("wsload: no address")
	}
	if c.Host == "" {
		c.Host = c.Addr
	}
	if c.Path == "" {
		c.Path = DefaultPath
	}
	if c.Size == 0 {
		c.Size = DefaultSize
	}
	if c.Size < 0 || c.Size > maxSize {
		return c, fmt.Errorf("wsload: message size %d out of range 0..%d", c.Size, maxSize)
	}
	if c.Connections <= 0 {
		c.Connections = 100
	}
	if c.Pipelining <= 0 {
		c.Pipelining = 1
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	c.Workers = min(c.Workers, c.Connections)
	if c.Count > 0 {
		c.Workers = int(min(int64(c.Workers), c.Count))
		c.Warmup = 0
	} else if c.Duration <= 0 {
		return c, errors.New("wsload: duration must be positive (or set a count)")
	}
	if c.Warmup < 0 {
		return c, errors.New("wsload: negative warm-up")
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	return c, nil
}

func newRunner(cfg Config) (*runner, error) {
	ta, err := net.ResolveTCPAddr("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("wsload: %w", err)
	}
	r := &runner{cfg: cfg, countMode: cfg.Count > 0}
	if ip4 := ta.IP.To4(); ip4 != nil {
		sa := &unix.SockaddrInet4{Port: ta.Port}
		copy(sa.Addr[:], ip4)
		r.family, r.sa = unix.AF_INET, sa
	} else {
		sa := &unix.SockaddrInet6{Port: ta.Port}
		copy(sa.Addr[:], ta.IP.To16())
		r.family, r.sa = unix.AF_INET6, sa
	}
	return r, nil
}

// Run drives the load and returns what was measured. Duration mode: warm-up, then the
// measured window, with the hooks at its edges. Count mode: exactly Count messages, all
// measured, returning once every one is echoed (or lost to an error: then the error wraps
// ErrIncomplete). If ctx ends first, Run stops within about 10 ms (plus the brief close
// handshake) and returns the partial Result with an error wrapping ErrIncomplete and ctx.Err().
// Every connection still open at the end is closed with a close frame (1000), waiting up to a
// second for the server's.
func Run(ctx context.Context, cfg Config, h Hooks) (*Result, error) {
	cfg, err := cfg.normalized()
	if err != nil {
		return nil, err
	}
	r, err := newRunner(cfg)
	if err != nil {
		return nil, err
	}
	// One blocking upgrade first: a target that is not there, or is not a WebSocket endpoint,
	// is one clear error rather than a run made of connect or handshake errors.
	pctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	probe, err := dial(pctx, cfg.Addr, cfg.Host, cfg.Path)
	cancel()
	if err != nil {
		return nil, err
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
			return nil, fmt.Errorf("wsload: %w", err)
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
		case <-finished: // Count mode: every message settled
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

	// The close handshake runs after the window (it is not part of any figure), on every
	// worker at once so it costs one wait, not one per worker.
	closeWait := min(cfg.Timeout, time.Second)
	for _, w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); w.closeAll(closeWait) }()
	}
	wg.Wait()

	res := merge(r, workers)
	if r.countMode && runErr == nil {
		var lost int64
		for _, w := range workers {
			lost += w.lost
		}
		if lost > 0 {
			runErr = fmt.Errorf("%w: %d of %d messages were not echoed", ErrIncomplete, lost, cfg.Count)
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
	res := &Result{Responses: c.messages, BytesRead: c.bytes, Hist: hist, Latency: summarize(hist), Unit: Unit,
		Errors: c.errorMap()}
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
