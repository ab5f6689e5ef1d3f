package kinds

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/stats"
)

// SweepOptions configure a sweep: Targets at each of Rates (requests/s in all) or of Fractions
// (of each target's own closed-loop maximum, measured first in the session at the profile's
// pipelining), one open-loop run per target and point; with SLO, the highest rate up to which
// p99 stays under it, per target (stats.SummarizeSweep).
type SweepOptions struct {
	Options
	Targets   []string
	Rates     []float64
	Fractions []float64
	SLO       time.Duration
}

// Check says what is wrong with the sweep asked for: every problem is bad input, found before
// any server starts; never a silent closed loop.
func (o SweepOptions) Check() error {
	switch {
	case len(o.Rates) > 0 && len(o.Fractions) > 0:
		return setting.Errorf("{rates} and {fractions}: give one, not both")
	case len(o.Rates) == 0 && len(o.Fractions) == 0 && o.SLO != 0:
		return setting.Errorf("{slo} needs the rates to judge: give {rates} or {fractions}")
	case len(o.Rates) == 0 && len(o.Fractions) == 0:
		return setting.Errorf("give {rates} (requests/s, e.g. 10000,20000) or {fractions} (of each target's closed-loop maximum, e.g. 0.25,0.5,0.75,0.9)")
	case o.SLO < 0:
		return setting.Errorf("{slo} must be above 0 (got %s)", o.SLO)
	case o.LagTolerance < 0:
		return setting.Errorf("{lag_tolerance} must be above 0 (got %s)", o.LagTolerance)
	case len(o.Targets) == 0:
		return setting.Errorf("{targets} is required, e.g. {targets} binding,uws")
	}
	for _, r := range o.Rates {
		if !(r > 0) {
			return setting.Errorf("{rates}: every rate must be above 0 requests/s (got %g)", r)
		}
	}
	for _, f := range o.Fractions {
		if !(f > 0 && f <= 1) {
			return setting.Errorf("{fractions}: every fraction must be in (0, 1] (got %g)", f)
		}
	}
	return distinct(o.Targets)
}

// sweepSession is a sweep once it is set up.
type sweepSession struct {
	o    SweepOptions
	st   *setup
	race profile.Race
	sc   scenario.Scenario
	dir  string
	sw   session.Sweep
	raw  []session.Run
}

// Sweep runs a sweep session and writes its files. An error is bad input or one before any
// measurement; a finished sweep is a result whatever the SLO says ("none" is one).
func Sweep(ctx context.Context, o SweepOptions) (Result[session.Sweep], error) {
	ss, err := newSweepSession(ctx, o)
	if err != nil {
		return Result[session.Sweep]{}, err
	}
	defer ss.st.close()
	if cut := ss.measure(ctx); cut != nil {
		ss.sw.Incomplete = measure.InterruptReason(ctx, cut)
	}
	stats.SummarizeSweep(&ss.sw)
	ss.sw.Finished = time.Now().UTC()
	werr := writeSession(ss.dir, ss.sw, session.Raw{Runs: ss.raw}, ss.st.man, o.Events)
	return Result[session.Sweep]{Dir: ss.dir, Summary: &ss.sw, WriteErr: werr}, nil
}

// newSweepSession checks o, sets the sweep up (setUp: targets resolved and verified) and
// creates the session directory.
func newSweepSession(ctx context.Context, o SweepOptions) (*sweepSession, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	pl, err := measure.NewPlan(o.Profile)
	if err != nil {
		return nil, err
	}
	pl.LagTolerance = o.LagTolerance
	if pl.Loadgen == "wrk" {
		return nil, setting.Errorf("{loadgen} wrk drives closed loops only: a sweep needs the builtin load generator")
	}
	ss := &sweepSession{o: o, race: o.Profile.Races()[0]}
	if ss.sc, err = scenarioOf(ss.race); err != nil {
		return nil, err
	}
	ss.sw = session.Sweep{Kind: "sweep", Targets: o.Targets, Scenario: ss.sc.Name, Unit: measure.UnitOf(ss.sc), Rates: o.Rates,
		Fractions: o.Fractions, SLOMs: float64(o.SLO) / float64(time.Millisecond)}
	ss.sw.Shape = shape(&o.Options, pl, ss.sc.Name, ss.race.Connections, ss.race.Pipelining)
	method := append(methodLines(pl), "sweep: one open-loop run per target at each rate, the targets' order alternating from one rate to the next")
	cfg := measure.Config{Plan: pl, Targets: o.Targets}
	ss.st, err = setUp(ctx, &ss.o.Options, cfg, []scenario.Scenario{ss.sc}, method, func(man *session.Manifest) {
		logWarnings(o.Events, &ss.sw.Warnings, man)
		o.Events.Notef("sweep %s: profile %s, %s, %d points × %s", strings.Join(o.Targets, ","), o.Profile.Name, racesText([]profile.Race{ss.race}),
			max(len(o.Rates), len(o.Fractions)), pl.Duration.D())
	})
	if err != nil {
		return nil, err
	}
	ss.sw.Started = ss.st.started
	if ss.dir, err = ss.st.makeDir(&o.Options, "sweep", o.Targets); err != nil {
		return nil, err
	}
	return ss, nil
}

// measure measures the closed-loop maxima (with fractions), then every point: each target once
// at the point's rate, in the targets' order at even points and the reverse at odd ones, so
// neither always runs first. It stops at the first failed run or an interrupt (cut).
func (ss *sweepSession) measure(ctx context.Context) error {
	rig, r := ss.st.rig, ss.race
	if len(ss.o.Fractions) > 0 {
		ss.sw.ClosedLoopMax = map[string]float64{}
		for _, t := range ss.o.Targets {
			run, err := closedMax(ctx, rig, t, ss.sc, r, "")
			ss.raw = append(ss.raw, run)
			if err != nil {
				return err
			}
			ss.sw.ClosedLoopMax[t] = round.To(run.RPS, 2)
		}
	}
	n := max(len(ss.o.Rates), len(ss.o.Fractions))
	for i := 0; i < n; i++ {
		order := slices.Clone(ss.o.Targets)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for slot, t := range order {
			p := session.SweepPoint{Point: i, Target: t}
			if len(ss.o.Rates) > 0 {
				p.Rate = ss.o.Rates[i]
			} else {
				p.Fraction = ss.o.Fractions[i]
				p.Rate = roundRate(p.Fraction * ss.sw.ClosedLoopMax[t])
			}
			label := fmt.Sprintf("point %d/%d %s at %s rps", i+1, n, t, thousands(p.Rate))
			run, err := rig.Run(ctx, measure.Spec{Target: t, Scenario: ss.sc, Connections: r.Connections, Pipelining: r.Pipelining, Slot: slot, Label: label, Rate: p.Rate})
			ss.raw = append(ss.raw, run.Record)
			p.Run = run.Record
			ss.sw.Points = append(ss.sw.Points, p)
			if err != nil {
				ss.o.Events.Notef("%s: %v", label, err)
				return err
			}
			if last := i == n-1 && slot == len(order)-1; !last {
				if err := rig.Cooldown(ctx, label); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// roundRate rounds a rate to whole requests per second (at least 1).
func roundRate(r float64) float64 { return max(1, float64(int64(r+0.5))) }
