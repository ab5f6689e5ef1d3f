package measure

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
)

// live is a started, verified server under measurement, with a context that ends when the
// session is cancelled or the server dies.
type live struct {
	r      *Rig
	spec   Spec
	plan   Plan // the rig's, with spec's server shape
	srv    Server
	ctx    context.Context
	cancel context.CancelFunc
	drv    *driver
	ramp   time.Duration // warm-up inside each measured load, after the warm-up proper
	// attached are the attacher probes' parts on this server, by the probe's index in the
	// rig's probes (nil for the others).
	attached []attachment
}

// launch starts spec's server and verifies its scenario; run gets the times that took. The
// caller readies the run first (backend.prepare). A live server comes back even with an error, for the
// caller to stop.
func (r *Rig) launch(ctx context.Context, spec Spec, run *Run) (*live, error) {
	r.events.status(spec, "starting", 0, 0)
	pl := r.plan.of(spec)
	srv, err := r.servers.start(ctx, r.targets[spec.Target], pl, spec, r.backend.Env())
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(ctx)
	lv := &live{r: r, spec: spec, plan: pl, srv: srv, ctx: lctx, cancel: cancel,
		drv: newDriver(pl, spec, srv.Addr(), r.fleet, r.backend.Requests(spec.Scenario, srv.Addr()))}
	run.Startup = srv.Startup()
	go func() {
		select {
		case <-srv.Exited():
			cancel()
		case <-lctx.Done():
		}
	}()
	r.events.status(spec, "verifying", 0, 0)
	if verr := r.backend.verify(lctx, spec.Target, srv.Addr(), []scenario.Scenario{spec.Scenario}); verr != nil {
		if awaitExit(srv) || ctx.Err() != nil {
			return lv, lv.failure(ctx, "verification", verr)
		}
		return lv, fmt.Errorf("target %s failed verification: %w", spec.Target, verr)
	}
	for i, p := range r.probes() {
		if a, ok := p.(attacher); ok {
			lv.attached = append(lv.attached, make([]attachment, i+1-len(lv.attached))...)
			lv.attached[i] = a.attach(srv, spec)
		}
	}
	return lv, nil
}

// stop ends lv's context and stops its server; attachments not yet detached stop unread.
func (lv *live) stop() {
	for i, a := range lv.attached {
		if a != nil {
			a.abandon()
			lv.attached[i] = nil
		}
	}
	lv.cancel()
	lv.r.servers.stop(lv.srv)
}

// open starts probe i's reading of a window: its attachment's, or the probe's own.
func (lv *live) open(i int, p Probe) Reading {
	if i < len(lv.attached) && lv.attached[i] != nil {
		return lv.attached[i].open()
	}
	return p.Open(lv.srv, lv.spec)
}

// awaitExit says whether srv has exited, after a request to it failed. A server that dies fails
// a request first (a refused or cut connection), and its exit may be known a moment later (on a
// server host, through ssh): it waits up to that moment, so that the error names the death, not
// the connection.
func awaitExit(srv Server) bool {
	select {
	case <-srv.Exited():
		return true
	case <-time.After(exitNotice):
		return false
	}
}

// exitNotice bounds awaitExit.
const exitNotice = 2 * time.Second

// diedDuring is the error of a server that exited during what.
func diedDuring(target string, srv Server, what string) error {
	why := ""
	if xe := srv.ExitError(); xe != nil {
		why = ": " + xe.Error()
	}
	return diedError{fmt.Sprintf("target %s (pid %d) exited during %s%s", target, srv.Pid(), what, why)}
}

func (lv *live) died() bool {
	select {
	case <-lv.srv.Exited():
		return true
	default:
		return false
	}
}

// failure says why a step of lv stopped: the session was interrupted (checked first: cancelling
// it stops the server too), the server died, or the step failed.
func (lv *live) failure(ctx context.Context, what string, err error) error {
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w during %s of %s", ErrInterrupted, what, lv.spec.Target)
	case lv.died():
		return diedDuring(lv.spec.Target, lv.srv, what)
	}
	return fmt.Errorf("target %s, %s: %w", lv.spec.Target, what, err)
}

// warm runs the warm-up: first the plan's WarmupRequests, then the timed warm-up, as its own
// load when a settle pause follows it (or apart is set), otherwise inside the first measured
// load's warm-up phase. Either way it is excluded from every figure.
func (lv *live) warm(ctx context.Context, apart bool) error {
	if err := lv.warmCount(ctx); err != nil {
		return err
	}
	pl := lv.plan
	lv.ramp = pl.Warmup.D()
	if !apart && (pl.Settle <= 0 || pl.Warmup <= 0) {
		return nil
	}
	_, err := lv.drv.drive(lv.ctx, 0, pl.Warmup.D(), load.Hooks{Progress: func(p load.Progress) {
		lv.r.events.status(lv.spec, "warm-up", p.Elapsed, p.Rate)
	}})
	if err != nil || lv.died() || ctx.Err() != nil {
		return lv.failure(ctx, "warm-up", err)
	}
	lv.r.events.status(lv.spec, "settling", 0, 0)
	if !sleep(lv.ctx, pl.Settle.D()) {
		return lv.failure(ctx, "settle", lv.ctx.Err())
	}
	// A short ramp so connections are open and pipelines full when a window opens.
	lv.ramp = min(100*time.Millisecond, pl.Warmup.D())
	if apart {
		lv.ramp = 100 * time.Millisecond
	}
	return nil
}

// warmCount sends the plan's WarmupRequests (Count mode) before the timed warm-up; every one
// must succeed.
func (lv *live) warmCount(ctx context.Context) error {
	n := lv.plan.WarmupRequests
	if n <= 0 {
		return nil
	}
	lv.r.events.status(lv.spec, fmt.Sprintf("warm-up: %d requests", n), 0, 0)
	res, err := lv.drv.count(lv.ctx, n)
	if err == nil && res != nil && len(res.Errors) > 0 {
		err = fmt.Errorf("%d warm-up requests did not all succeed: %v", n, res.Errors)
	}
	if err != nil || lv.died() || ctx.Err() != nil {
		return lv.failure(ctx, "warm-up", err)
	}
	return nil
}

// window measures window index of lv: one load of the plan's duration after the ramp, the
// rig's probes opened as its measured window opens and closed as it closes.
func (lv *live) window(ctx context.Context, label string, index int) (Window, error) {
	w := Window{Index: index}
	var mu sync.Mutex
	var open []Reading
	probes := lv.r.probes()
	hooks := load.Hooks{
		MeasureStart: func() {
			mu.Lock()
			defer mu.Unlock()
			w.Opened, w.At = true, time.Now()
			for i, p := range probes {
				if rd := lv.open(i, p); rd != nil {
					open = append(open, rd)
				}
			}
		},
		MeasureEnd: func() {
			mu.Lock()
			defer mu.Unlock()
			if !w.Opened || w.Closed {
				return
			}
			w.Closed = true
			lv.close(open, &w)
			open = nil
		},
		Progress: func(p load.Progress) {
			phase := "measuring"
			if p.Phase == "warmup" {
				phase = "warm-up"
			}
			lv.r.events.Emit(Status{Label: label, Phase: phase, Elapsed: p.Elapsed, Rate: p.Rate, Unit: Unit(lv.spec.Scenario)})
			if p.Phase == "measure" && p.Elapsed >= time.Second-50*time.Millisecond {
				mu.Lock()
				w.Seconds = append(w.Seconds, round.To(p.Rate, 2))
				mu.Unlock()
			}
		},
	}
	res, err := lv.drv.drive(lv.ctx, lv.ramp, lv.plan.Duration.D(), hooks)
	mu.Lock()
	lv.close(open, &Window{}) // MeasureEnd never came (the load failed): end the readings, keep nothing
	mu.Unlock()
	w.Load = res
	if err != nil || lv.died() || ctx.Err() != nil {
		return w, lv.failure(ctx, "the measurement", err)
	}
	return w, nil
}

// close closes readings in reverse order into w, logging what they could not read.
func (lv *live) close(readings []Reading, w *Window) {
	for _, rd := range slices.Backward(readings) {
		if err := rd.Close(w); err != nil {
			lv.r.events.Warnf("%v", err)
		}
	}
}

// finish reads what is read after the windows (peak RSS; heap and threads through the info
// route, never requested under load) and stops the server.
func (lv *live) finish(ctx context.Context, run *Run) error {
	f := &run.Final
	f.Usage, f.UsageErr = lv.srv.Usage()
	f.Info, f.InfoErr = lv.srv.Info()
	for i, a := range lv.attached {
		if a != nil {
			a.detach(run)
			lv.attached[i] = nil
		}
	}
	run.Finished = true
	if lv.died() {
		return lv.failure(ctx, "the measurement", nil)
	}
	lv.stop()
	return nil
}

// status reports what spec's run is doing.
func (ev Events) status(spec Spec, phase string, elapsed time.Duration, rate float64) {
	ev.Emit(Status{Label: spec.Label, Phase: phase, Elapsed: elapsed, Rate: rate, Unit: Unit(spec.Scenario)})
}
