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
// It shares harness/load's machinery rather than copying it: the run loop and its phases
// (load.Drive), the measured window, the raw syscalls, the clock, the histogram, and the types
// the race orchestrator reads (Hooks, Progress, Result, whose Unit is "messages/s" here). The
// CLI dispatches `bindrace load` to Command for ws:// URLs and WebSocket scenarios.
//
// Linux only (epoll).
package wsload

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"golang.org/x/sys/unix"
)

const (
	// DefaultTimeout applies when Config.Timeout is zero.
	DefaultTimeout = load.DefaultTimeout
	// Unit names what Result.RPS counts.
	Unit = "messages/s"
)

type Config struct {
	Addr        string        // host:port
	Host        string        // Host header; default Addr
	Path        string        // upgrade path; default scenario.WSPath
	Size        int           // payload bytes per message; default scenario.WSMessageSize, at most scenario.WSMaxMessage
	Connections int           // default 100
	Pipelining  int           // messages in flight per connection, written in one batch; default 1
	Workers     int           // goroutines, each with its own event loop; default GOMAXPROCS
	Warmup      time.Duration // excluded from every figure
	Duration    time.Duration // measured window
	Count       int64         // > 0: send exactly Count messages in all, no warm-up, then stop
	Timeout     time.Duration // dial, upgrade and per-batch echo timeout; default DefaultTimeout
}

// Hooks and Progress are harness/load's: Progress.Responses counts echoed messages.
type (
	Hooks    = load.Hooks
	Progress = load.Progress
	// Result is harness/load's: Responses counts complete, matching echoes that arrived in the
	// window, RPS is messages per second and Unit is "messages/s".
	Result = load.Result
)

// Shape is the part of c that says how the load is driven.
func (c Config) Shape() load.Shape {
	return load.Shape{Connections: c.Connections, Pipelining: c.Pipelining, Workers: c.Workers, Warmup: c.Warmup,
		Duration: c.Duration, Count: c.Count, Timeout: c.Timeout}
}

// runner is what the workers of one Run share: read-only configuration plus the window.
type runner struct {
	cfg       Config
	countMode bool
	family    int
	sa        unix.Sockaddr // a template: each worker connects with its own copy (see sockaddr)
	win       load.Window
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
		c.Path = scenario.WSPath
	}
	if c.Size == 0 {
		c.Size = scenario.WSMessageSize
	}
	if c.Size < 0 || c.Size > scenario.WSMaxMessage {
		return c, fmt.Errorf("wsload: message size %d out of range 0..%d", c.Size, scenario.WSMaxMessage)
	}
	s, err := c.Shape().Normalized()
	c.Connections, c.Pipelining, c.Workers, c.Warmup = s.Connections, s.Pipelining, s.Workers, s.Warmup
	c.Duration, c.Count, c.Timeout = s.Duration, s.Count, s.Timeout
	return c, err
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

	sh := cfg.Shape()
	workers, err := load.NewWorkers(sh, func(n int, share int64) (*worker, error) { return newWorker(r, n, share) })
	if err != nil {
		return nil, fmt.Errorf("wsload: %w", err)
	}
	defer load.Shutdown(workers)
	runErr := load.Drive(ctx, sh, h, &r.win, workers)

	// The close handshake runs after the window (it is not part of any figure), on every
	// worker at once so it costs one wait, not one per worker.
	closeWait := min(cfg.Timeout, time.Second)
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); w.closeAll(closeWait) }()
	}
	wg.Wait()

	res, lost := load.Totals(&r.win, workers)
	var c counts
	for _, w := range workers {
		c.add(&w.counts)
	}
	res.BytesRead, res.Reconnects, res.Errors, res.Unit = c.bytes, c.reconnects, c.errorMap(), Unit
	if r.countMode && runErr == nil && lost > 0 {
		runErr = fmt.Errorf("%w: %d of %d messages were not echoed", ErrIncomplete, lost, cfg.Count)
	}
	return res, runErr
}
