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
	d := &driver{r: r, h: h, workers: workers, phase: "warmup"}
	if r.cfg.Count > 0 {
		d.phase = "count"
	}
	if d.phase == "count" || r.cfg.Warmup == 0 {
		d.openWindow()
	}
	finished := d.start()
	runErr := d.wait(ctx, finished)
	d.closeWindow()
	r.win.stop.Store(true)
	<-finished
	return runErr
}

// driver is drive's state: the phase and what the once-a-second progress needs.
type driver struct {
	r       *runner
	h       Hooks
	workers []*worker
	phase   string // "warmup", "measure" or "count"

	phaseStart time.Time
	phaseBase  int64 // responses when the phase began
	lastTick   time.Time
	lastTotal  int64
}

// start runs every worker in its goroutine; the channel closes when all have returned.
func (d *driver) start() <-chan struct{} {
	var wg sync.WaitGroup
	for _, w := range d.workers {
		wg.Add(1)
		go func() { defer wg.Done(); w.run() }()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	d.phaseStart, d.lastTick = time.Now(), time.Now()
	return finished
}

// wait returns when the load is over: the measured window's end, every worker done (Count
// mode), or ctx's end (an error wrapping ErrIncomplete). The warm-up's end opens the window.
func (d *driver) wait(ctx context.Context, finished <-chan struct{}) error {
	cfg := d.r.cfg
	edge := time.NewTimer(cfg.Warmup)
	switch d.phase {
	case "count":
		edge.Stop()
	case "measure":
		edge.Reset(cfg.Duration)
	}
	defer edge.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrIncomplete, ctx.Err())
		case <-finished: // Count mode: everything settled
			return nil
		case <-edge.C:
			if d.phase != "warmup" {
				return nil
			}
			d.openWindow()
			d.phaseStart, d.phaseBase = time.Now(), d.total()
			edge.Reset(cfg.Duration)
		case now := <-tick.C:
			d.progress(now)
		}
	}
}

// openWindow opens the measured window (after MeasureStart) and enters the measure phase.
func (d *driver) openWindow() {
	if d.h.MeasureStart != nil {
		d.h.MeasureStart()
	}
	if d.r.open {
		d.r.cpu[0] = processCPU()
	}
	d.r.win.open()
	if d.phase == "warmup" {
		d.phase = "measure"
	}
}

// closeWindow closes the window if it opened, then calls MeasureEnd.
func (d *driver) closeWindow() {
	if !d.r.win.opened() {
		return
	}
	d.r.win.close()
	if d.r.open {
		d.r.cpu[1] = processCPU()
	}
	if d.h.MeasureEnd != nil {
		d.h.MeasureEnd()
	}
}

func (d *driver) total() (n int64) {
	for _, w := range d.workers {
		n += w.answered()
	}
	return n
}

func (d *driver) progress(now time.Time) {
	n := d.total()
	if d.h.Progress != nil {
		d.h.Progress(Progress{Phase: d.phase, Elapsed: max(0, now.Sub(d.phaseStart)), Responses: n - d.phaseBase,
			Rate: float64(n-d.lastTotal) / now.Sub(d.lastTick).Seconds()})
	}
	d.lastTick, d.lastTotal = now, n
}
