package load

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// Shape is how a load is driven, whatever it sends: the part of a configuration that the
// shared run loop (Drive), the defaults and the printed summaries deal with. harness/wsload
// drives WebSocket messages with the same shape.
type Shape struct {
	Connections int           // default 100
	Pipelining  int           // in flight per connection, written in one batch; default 1
	Workers     int           // goroutines, each with its own event loop; default GOMAXPROCS
	Warmup      time.Duration // excluded from every figure
	Duration    time.Duration // measured window
	Count       int64         // > 0: send exactly Count in all, no warm-up, then stop
	Timeout     time.Duration // dial and per-batch timeout; default DefaultTimeout
}

// Normalized fills the defaults in and checks what is left.
func (s Shape) Normalized() (Shape, error) {
	if s.Connections <= 0 {
		s.Connections = 100
	}
	if s.Pipelining <= 0 {
		s.Pipelining = 1
	}
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	s.Workers = min(s.Workers, s.Connections)
	if s.Count > 0 {
		s.Workers = int(min(int64(s.Workers), s.Count))
		s.Warmup = 0
	} else if s.Duration <= 0 {
		return s, errors.New("load: duration must be positive (or set a count)")
	}
	if s.Warmup < 0 {
		return s, errors.New("load: negative warm-up")
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	return s, nil
}

// Share is worker i's part of a normalized shape: its connections and, in Count mode, how
// many it sends.
func (s Shape) Share(i int) (conns int, count int64) {
	conns = s.Connections/s.Workers + btoi(i < s.Connections%s.Workers)
	if s.Count > 0 {
		count = s.Count/int64(s.Workers) + int64(btoi(int64(i) < s.Count%int64(s.Workers)))
	}
	return conns, count
}

// Worker is one event-loop goroutine of a load generator, as Drive sees it.
type Worker interface {
	// Run loops until the Window stops, or in Count mode until its share is settled.
	Run()
	// Progress is how many answers arrived so far, in any phase; read from another goroutine.
	Progress() int64
	// Shutdown closes the worker's sockets and epoll instance.
	Shutdown()
}

// NewWorkers makes s.Workers workers (s normalized), each with its share of the connections
// and of the count. On an error the ones already made are shut down.
func NewWorkers[W Worker](s Shape, newWorker func(conns int, share int64) (W, error)) ([]W, error) {
	ws := make([]W, 0, s.Workers)
	for i := range s.Workers {
		w, err := newWorker(s.Share(i))
		if err != nil {
			Shutdown(ws)
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// Shutdown shuts every worker down.
func Shutdown[W Worker](ws []W) {
	for _, w := range ws {
		w.Shutdown()
	}
}

// Drive runs workers through a load of shape s (normalized): warm-up, then the measured
// window with h's hooks at its edges (Count mode: the window covers everything, until every
// worker returns). It publishes the window's edges and the stop in win, calls h.Progress about
// once a second, and returns once every worker has returned. If ctx ends first, it stops the
// workers within their poll interval and returns an error wrapping ErrIncomplete and ctx.Err().
func Drive[W Worker](ctx context.Context, s Shape, h Hooks, win *Window, workers []W) error {
	call := func(f func()) {
		if f != nil {
			f()
		}
	}
	countMode := s.Count > 0
	phase := "warmup"
	if countMode {
		phase = "count"
	}
	if countMode || s.Warmup == 0 {
		call(h.MeasureStart)
		win.Open()
		if phase == "warmup" {
			phase = "measure"
		}
	}

	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() { defer wg.Done(); w.Run() }()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	total := func() (n int64) {
		for _, w := range workers {
			n += w.Progress()
		}
		return n
	}
	phaseStart, phaseBase := time.Now(), int64(0)
	edge := time.NewTimer(s.Warmup)
	switch {
	case countMode:
		edge.Stop()
	case phase == "measure":
		edge.Reset(s.Duration)
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
		case <-finished: // Count mode: everything settled
			break loop
		case <-edge.C:
			if phase == "warmup" {
				call(h.MeasureStart)
				win.Open()
				phase, phaseStart, phaseBase = "measure", time.Now(), total()
				edge.Reset(s.Duration)
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
	if win.Opened() {
		win.Close()
		call(h.MeasureEnd)
	}
	win.stop.Store(true)
	<-finished
	return runErr
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
