package measure

import (
	"context"
	"fmt"
)

// Run measures spec in one fresh server process and one window: start, verify, warm up, settle,
// measure, stop. The Run carries what was measured even with an error (its Record says what
// went wrong).
func (r *Rig) Run(ctx context.Context, spec Spec) (Run, error) {
	return r.process(ctx, spec, 1, false, nil)
}

// Process measures spec in one fresh server process and windows back-to-back windows, warmed
// up apart (the warm-up its own load, then the settle pause) and each window opening after a
// 100 ms ramp on fresh connections: a noise study's process. onWindow, if set, is called after
// each window.
func (r *Rig) Process(ctx context.Context, spec Spec, windows int, onWindow func(Window)) (Run, error) {
	return r.process(ctx, spec, windows, true, onWindow)
}

func (r *Rig) process(ctx context.Context, spec Spec, windows int, apart bool, onWindow func(Window)) (run Run, err error) {
	run = Run{Spec: spec, Ran: true}
	defer func() {
		run.Err = err
		run.Record = r.rec.record(run)
		if err == nil {
			r.events.Emit(RunDone{Label: spec.Label, Unit: Unit(spec.Scenario), Run: run.Record})
		}
	}()
	if ctx.Err() != nil {
		return run, ErrInterrupted
	}
	if run.Busy, run.Steal, err = sampleMachine(ctx, r.plan, r.events, spec.Label); err != nil {
		return run, err
	}
	if run.Prepared, err = r.backend.prepare(ctx, spec); err != nil {
		return run, err
	}
	lv, err := r.launch(ctx, spec, &run)
	if lv != nil {
		defer lv.stop()
	}
	if err != nil {
		return run, err
	}
	if err = lv.warm(ctx, apart); err != nil {
		return run, err
	}
	for i := range windows {
		label := spec.Label
		if windows > 1 {
			label = fmt.Sprintf("%s window %d/%d", spec.Label, i+1, windows)
		}
		w, err := lv.window(ctx, label, i)
		run.Windows = append(run.Windows, w)
		if err != nil {
			return run, err
		}
		if onWindow != nil {
			onWindow(w)
		}
	}
	return run, lv.finish(ctx, &run)
}
