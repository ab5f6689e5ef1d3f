package measure

import (
	"context"
	"errors"
	"fmt"

	"github.com/bindrace/bindrace/harness/session"
)

// PairOptions shape a pair's measurement beyond the plan.
type PairOptions struct {
	// AfterRound, if set, is called after each round of partner windows (the two sides' window
	// w; with one window per run, the pair's two runs) and returns "" to keep the round, or why
	// it is set aside. A set-aside round's windows stay in both runs, marked with the reason,
	// and are left out of every figure; the round is measured again while extra rounds are left.
	AfterRound func(Round) (setAside string)
	// MaxExtraRounds caps the rounds measured again in place of set-aside ones, per pair.
	MaxExtraRounds int
}

// Round is one round of partner windows of a pair, as AfterRound sees it.
type Round struct {
	Index     int       // from 0, over every round the pair measured (set-aside ones too)
	Windows   [2]Window // the partner windows, in the pair's order (seq[0]'s, then seq[1]'s)
	ExtraLeft int       // rounds that may still be measured again; 0: a round set aside now is not
}

// Pair measures a pair of runs, seq[0] first. With one window per run (Plan.Windows <= 1),
// each run is its own fresh process, seq[1]'s after a cooldown. With several, both servers are
// started, verified and warmed up (seq[0] first; a database scenario's copy reset once, before
// both), then measured in Plan.Windows rounds of alternating windows, A B, B A, A B … (a
// round's order alternates over every round measured), then both stopped. The runs come back
// in seq's order and carry what was measured even on an error; a run that never started
// because its partner failed first has Ran false.
func (r *Rig) Pair(ctx context.Context, seq [2]Spec, o PairOptions) ([2]Run, error) {
	p := pair{r: r, seq: seq, o: o}
	if r.plan.Windows > 1 {
		return p.interleaved(ctx)
	}
	return p.apart(ctx)
}

// pair is one pair's measurement under way.
type pair struct {
	r   *Rig
	seq [2]Spec
	o   PairOptions
}

// apart measures the pair as two fresh runs back to back; a set-aside round is measured again
// as two fresh runs, the set-aside windows kept at the front of each run's.
func (p pair) apart(ctx context.Context) (runs [2]Run, err error) {
	r, seq, o := p.r, p.seq, p.o
	var asideWindows [2][]Window
	for round, extra := 0, 0; ; round++ {
		for slot := range seq {
			if err != nil {
				runs[slot] = notRun(seq[slot])
				continue
			}
			if slot > 0 {
				if err = r.Cooldown(ctx, seq[0].Label); err != nil {
					runs[slot] = notRun(seq[slot])
					continue
				}
			}
			runs[slot], err = r.Run(ctx, seq[slot])
		}
		for i := range runs {
			if len(asideWindows[i]) > 0 && runs[i].Ran {
				runs[i].Windows = append(append([]Window(nil), asideWindows[i]...), reindex(runs[i].Windows, len(asideWindows[i]))...)
				runs[i].Record = r.rec.record(runs[i])
			}
		}
		if err != nil || o.AfterRound == nil {
			return runs, err
		}
		why := o.AfterRound(Round{Index: round, Windows: [2]Window{last(runs[0]), last(runs[1])}, ExtraLeft: o.MaxExtraRounds - extra})
		if why == "" {
			return runs, nil
		}
		for i := range runs {
			runs[i].Windows[len(runs[i].Windows)-1].SetAside = why
			runs[i].Record = r.rec.record(runs[i])
			asideWindows[i] = runs[i].Windows
		}
		if extra == o.MaxExtraRounds {
			return runs, nil
		}
		extra++
		if err = r.Cooldown(ctx, seq[1].Label); err != nil {
			return runs, err
		}
	}
}

// interleaved measures the pair with both servers live, in alternating windows.
func (p pair) interleaved(ctx context.Context) (runs [2]Run, err error) {
	r, seq := p.r, p.seq
	var lvs [2]*live
	defer func() {
		for i := range runs {
			if lvs[i] != nil && !runs[i].Finished {
				lvs[i].stop()
			}
			if err != nil && runs[i].Err == nil {
				runs[i].Err = err
			}
			runs[i].Record = r.rec.record(runs[i])
		}
	}()
	for i, spec := range seq {
		runs[i] = Run{Spec: spec, Ran: true}
	}
	if ctx.Err() != nil {
		return runs, ErrInterrupted
	}
	busy, steal, err := sampleMachine(ctx, r.plan, r.events, seq[0].Label)
	if err != nil {
		return runs, err
	}
	for i := range seq {
		runs[i].Busy, runs[i].Steal = busy, steal
	}
	// One reset before both servers start: they share the copy, which only a scenario that
	// writes could not (it runs one server at a time: kinds.checkDB).
	if runs[0].Prepared, err = r.backend.prepare(ctx, seq[0]); err != nil {
		return runs, err
	}
	for i := range seq {
		if lvs[i], err = r.launch(ctx, seq[i], &runs[i]); err != nil {
			return runs, err
		}
	}
	for _, lv := range lvs {
		if err = lv.warm(ctx, false); err != nil {
			return runs, err
		}
	}
	if err = p.rounds(ctx, lvs, &runs); err != nil {
		return runs, err
	}
	for i, lv := range lvs {
		if err = lv.finish(ctx, &runs[i]); err != nil {
			return runs, err
		}
		runs[i].Record = r.rec.record(runs[i])
		r.events.Emit(RunDone{Label: seq[i].Label, Unit: Unit(seq[i].Scenario), Run: runs[i].Record})
	}
	return runs, nil
}

// rounds measures the plan's rounds of partner windows, and the extra ones that replace rounds
// AfterRound set aside.
func (p pair) rounds(ctx context.Context, lvs [2]*live, runs *[2]Run) error {
	r, o := p.r, p.o
	planned := r.plan.Windows
	for round, kept, extra := 0, 0, 0; kept < planned; round++ {
		for k := range 2 {
			i := k ^ (round % 2) // A B, then B A, ...
			label := fmt.Sprintf("%s window %d/%d", lvs[i].spec.Label, round+1, planned+extra)
			w, err := lvs[i].window(ctx, label, round)
			runs[i].Windows = append(runs[i].Windows, w)
			if err != nil {
				return err
			}
		}
		why := ""
		if o.AfterRound != nil {
			why = o.AfterRound(Round{Index: round, Windows: [2]Window{last(runs[0]), last(runs[1])}, ExtraLeft: o.MaxExtraRounds - extra})
		}
		if why != "" {
			for i := range runs {
				runs[i].Windows[len(runs[i].Windows)-1].SetAside = why
			}
		}
		if why != "" && extra < o.MaxExtraRounds {
			extra++
			continue
		}
		kept++
	}
	return nil
}

// notRun is a pair's run that never started: its partner failed first.
func notRun(spec Spec) Run {
	err := errors.New("not run: session stopped")
	return Run{Spec: spec, Err: err,
		Record: session.Run{Target: spec.Target, Scenario: spec.Scenario.Name, Slot: spec.Slot, Error: err.Error()}}
}

// last is run's last window (zero when it has none).
func last(run Run) Window {
	if len(run.Windows) == 0 {
		return Window{}
	}
	return run.Windows[len(run.Windows)-1]
}

// reindex numbers windows from base on.
func reindex(ws []Window, base int) []Window {
	for i := range ws {
		ws[i].Index = base + i
	}
	return ws
}
