package race

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/session"
)

// points measures every point: thread counts ascending, rounds within each, the targets'
// order reversed from one round (and point) to the next. It stops at the first failed run or
// an interrupt, returning that as cut; the runs so far are kept.
func (ss *scaleSession) points(ctx context.Context) (runs []session.ScaleRun, cut error) {
	eng, k := ss.st.eng, 0
	total := len(ss.o.Threads) * ss.rounds * len(ss.o.Targets)
	for _, t := range ss.o.Threads {
		cpus, shared, err := ScaleCPUs(t, ss.pl.CPUsServer, ss.pl.CPUsClient, runtime.NumCPU())
		if err != nil {
			return runs, err
		}
		eng.plan.Threads, eng.plan.CPUsServer = t, cpus
		for r := 0; r < ss.rounds; r++ {
			order := slices.Clone(ss.o.Targets)
			if k%2 == 1 {
				slices.Reverse(order)
			}
			k++
			for slot, name := range order {
				label := fmt.Sprintf("threads %d round %d/%d %s", t, r+1, ss.rounds, name)
				rs := runSpec{target: name, sc: ss.sc, connections: ss.conns, pipelining: ss.pipe, slot: slot, label: label}
				sr := session.ScaleRun{ServerThreads: t, Round: r, CPUsServer: cpus, CPUsClient: ss.pl.CPUsClient, SharedCPUs: shared,
					ClientCores: eng.plan.clientWorkers()}
				sr.Run, sr.ClientCPUPct, err = eng.measureScaled(ctx, rs)
				runs = append(runs, sr)
				if err != nil {
					eng.prog.Logf("%s: %v", label, err)
					return runs, err
				}
				if sr.Run.Threads != 0 && sr.Run.Threads != t {
					ss.warn = append(ss.warn, fmt.Sprintf("%s served with %d threads when %d were asked", name, sr.Run.Threads, t))
				}
				if len(runs) < total && !eng.cooldown(ctx, label) {
					return runs, fmt.Errorf("%w during cooldown", ErrInterrupted)
				}
			}
		}
	}
	return runs, nil
}

// measureScaled is measure with the load generator's own CPU read over the measured window
// (getrusage of this process, where the generator runs), in % of one core.
func (e *engine) measureScaled(ctx context.Context, rs runSpec) (run session.Run, clientPct float64, err error) {
	run = session.Run{Target: rs.target, Scenario: rs.sc.Name, Slot: rs.slot, ArtifactBytes: e.artefact[rs.target]}
	defer func() {
		if err != nil {
			run.Error = err.Error()
			run.ClientBound = false
		}
	}()
	if ctx.Err() != nil {
		return run, 0, ErrInterrupted
	}
	if run.BusyPct, run.StealPct, err = e.sampleMachine(ctx, rs.label); err != nil {
		return run, 0, err
	}
	lv, err := e.launch(ctx, rs)
	if lv != nil {
		defer func() { lv.cancel(); e.stop(lv.srv) }()
	}
	if err != nil {
		return run, 0, err
	}
	gen := &genCPU{}
	lv.drive = gen.wrap(lv.drive)
	if err = e.warm(ctx, lv); err == nil {
		err = e.window(ctx, lv, rs.label)
	}
	lv.tally.into(&run, e)
	clientPct = gen.pct()
	if err != nil {
		return run, clientPct, err
	}
	if err = e.finish(ctx, lv, &run); err != nil {
		return run, clientPct, err
	}
	e.logRun(rs, run)
	return run, clientPct, nil
}

// genCPU reads this process's CPU time over the last measured window.
type genCPU struct {
	mu         sync.Mutex
	cpu0, cpu1 time.Duration
	t0, t1     time.Time
}

type driveFunc = func(ctx context.Context, warmup, duration time.Duration, h load.Hooks) (*load.Result, error)

// wrap returns drive with the window's start and end also read by g.
func (g *genCPU) wrap(drive driveFunc) driveFunc {
	return func(ctx context.Context, warmup, duration time.Duration, h load.Hooks) (*load.Result, error) {
		h.MeasureStart = g.mark(&g.cpu0, &g.t0, h.MeasureStart)
		h.MeasureEnd = g.mark(&g.cpu1, &g.t1, h.MeasureEnd)
		return drive(ctx, warmup, duration, h)
	}
}

// mark returns a hook that reads the CPU time and the clock into cpu and at, then calls next.
func (g *genCPU) mark(cpu *time.Duration, at *time.Time, next func()) func() {
	return func() {
		g.mu.Lock()
		*cpu, *at = selfCPU(), time.Now()
		g.mu.Unlock()
		if next != nil {
			next()
		}
	}
}

// pct is the CPU used over the window in % of one core; 0 when no window closed.
func (g *genCPU) pct() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	wall := g.t1.Sub(g.t0)
	if g.t0.IsZero() || wall <= 0 {
		return 0
	}
	return round2(float64(g.cpu1-g.cpu0) / float64(wall) * 100)
}

// selfCPU is this process's user + system time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
