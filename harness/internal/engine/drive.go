package engine

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// drive runs the workers through r's load: warm-up, then the measured window with h's hooks at
// its edges (Count mode: the window covers everything, until every worker returns). It
// publishes the window's edges and the stop in r.win, calls h.Progress about once a second,
// and returns once every worker has returned. If ctx ends first, it stops the workers within
// their poll interval and returns an error wrapping ErrIncomplete and ctx.Err().
func drive(ctx context.Context, r *runner, h Hooks, workers []*worker) error {
	call := func(f func()) {
		if f != nil {
			f()
		}
	}
	cfg, win := r.cfg, &r.win
	countMode := cfg.Count > 0
	phase := "warmup"
	if countMode {
		phase = "count"
	}
	openWindow := func() {
		call(h.MeasureStart)
		if r.open {
			r.cpu[0] = processCPU()
		}
		win.open()
	}
	if countMode || cfg.Warmup == 0 {
		openWindow()
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
			n += w.answered()
		}
		return n
	}
	phaseStart, phaseBase := time.Now(), int64(0)
	edge := time.NewTimer(cfg.Warmup)
	switch {
	case countMode:
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
		case <-finished: // Count mode: everything settled
			break loop
		case <-edge.C:
			if phase == "warmup" {
				openWindow()
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
	if win.opened() {
		win.close()
		if r.open {
			r.cpu[1] = processCPU()
		}
		call(h.MeasureEnd)
	}
	win.stop.Store(true)
	<-finished
	return runErr
}
