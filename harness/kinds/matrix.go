package kinds

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/stats"
)

// MatrixOptions configure a matrix: Targets once per round, each round in an order shuffled
// from the seed.
type MatrixOptions struct {
	Options
	Targets []string
}

// Matrix runs a matrix session: every target once per round, each round in an order shuffled
// from the seed, and writes its files. An error is one before any measurement.
func Matrix(ctx context.Context, o MatrixOptions) (Result[session.Matrix], error) {
	ms, err := newMatrixSession(ctx, &o)
	if err != nil {
		return Result[session.Matrix]{}, err
	}
	defer ms.st.close()
	runs, cut := ms.rounds(ctx)
	r := ms.race
	m := &session.Matrix{
		Kind: "matrix", Targets: o.Targets, Scenario: r.Scenario, Unit: measure.UnitOf(ms.sc), Seed: o.Seed, Orders: ms.orders, Runs: runs,
		Warnings: ms.warnings, Started: ms.st.started,
	}
	m.Shape = shape(&o.Options, ms.pl, r.Scenario, r.Connections, r.Pipelining)
	m.Shape.Rounds, m.Shape.Seed = len(ms.orders), o.Seed
	if cut != nil {
		m.Incomplete = measure.InterruptReason(ctx, cut)
	}
	stats.SummarizeMatrix(m)
	m.Finished = time.Now().UTC()
	werr := writeSession(ms.dir, m, session.Raw{Runs: runs}, ms.st.man, o.Events)
	return Result[session.Matrix]{Dir: ms.dir, Summary: m, WriteErr: werr}, nil
}

// matrixSession is a matrix once it is set up.
type matrixSession struct {
	ev       measure.Events
	pl       measure.Plan
	st       *setup
	race     profile.Race // a matrix covers one race: the profile's first
	sc       scenario.Scenario
	orders   [][]string
	warnings []string
	dir      string
}

// newMatrixSession checks o, shuffles the rounds' orders, sets the matrix up (setUp) and
// creates the session directory.
func newMatrixSession(ctx context.Context, o *MatrixOptions) (*matrixSession, error) {
	if len(o.Targets) < 2 {
		return nil, setting.Errorf("{targets} needs at least two targets, e.g. {targets} binding,uws,fasthttp")
	}
	if err := distinct(o.Targets); err != nil {
		return nil, err
	}
	pl, err := measure.NewPlan(o.Profile)
	if err != nil {
		return nil, err
	}
	races := o.Profile.Races()
	ms := &matrixSession{ev: o.Events, pl: pl, race: races[0]}
	if ms.sc, err = scenarioOf(ms.race); err != nil {
		return nil, err
	}
	if err := checkServes(o.Targets, []scenario.Scenario{ms.sc}); err != nil {
		return nil, err
	}
	if err := checkDB(&o.Options, &ms.pl, []scenario.Scenario{ms.sc}, &ms.warnings); err != nil {
		return nil, err
	}
	if !o.SeedSet {
		o.Seed = NewSeed()
	}
	if len(races) > 1 {
		ms.warnings = append(ms.warnings, fmt.Sprintf("a matrix covers one race: %s (connections %d, pipelining %d); the profile's other races were not run", ms.race.Scenario, ms.race.Connections, ms.race.Pipelining))
	}
	if o.Profile.OpenLoop() {
		ms.warnings = append(ms.warnings, "a matrix runs closed loops: the profile's rate is not used (bindrace sweep measures targets at rates)")
	}
	ms.orders = MatrixOrders(o.Targets, o.Profile.Rounds, o.Seed)
	method := append(methodLines(ms.pl), fmt.Sprintf("matrix: %d rounds, each in an order shuffled from seed %d (math/rand/v2 PCG)", o.Profile.Rounds, o.Seed))
	cfg := measure.Config{Plan: ms.pl, Targets: o.Targets}
	ms.st, err = setUp(ctx, &o.Options, cfg, []scenario.Scenario{ms.sc}, method, func(man *session.Manifest) {
		logWarnings(o.Events, &ms.warnings, man)
		o.Events.Notef("matrix %s: profile %s, %s, %d rounds × %s, seed %d", strings.Join(o.Targets, ","), o.Profile.Name, racesText(races[:1]), len(ms.orders), ms.pl.Duration.D(), o.Seed)
	})
	if err != nil {
		return nil, err
	}
	if ms.dir, err = ms.st.makeDir(&o.Options, "matrix", o.Targets); err != nil {
		return nil, err
	}
	return ms, nil
}

// rounds runs every round's targets in its order, with a cooldown between runs; it stops at
// the first failed run or an interrupt, returning that as cut.
func (ms *matrixSession) rounds(ctx context.Context) (runs []session.Run, cut error) {
	rig, r := ms.st.rig, ms.race
	for ri, order := range ms.orders {
		for slot, name := range order {
			label := fmt.Sprintf("round %d/%d slot %d %s", ri+1, len(ms.orders), slot+1, name)
			run, err := rig.Run(ctx, measure.Spec{Target: name, Scenario: ms.sc, Connections: r.Connections, Pipelining: r.Pipelining, Slot: slot, Label: label})
			runs = append(runs, run.Record)
			if err != nil {
				ms.ev.Notef("%s: %v", label, err)
				return runs, err
			}
			if last := ri == len(ms.orders)-1 && slot == len(order)-1; !last {
				if err := rig.Cooldown(ctx, label); err != nil {
					return runs, err
				}
			}
		}
	}
	return runs, nil
}

// distinct refuses a target listed twice.
func distinct(names []string) error {
	seen := map[string]bool{}
	for _, t := range names {
		if seen[t] {
			return fmt.Errorf("target %q listed twice", t)
		}
		seen[t] = true
	}
	return nil
}
