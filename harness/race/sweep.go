package race

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// SweepOptions configure a sweep: Options.Targets at each of Rates (requests/s in all) or of
// Fractions (of each target's own closed-loop maximum, measured first in the session at the
// profile's pipelining), one open-loop run per target and point; with SLO, the highest rate up
// to which p99 stays under it, per target (stats.SummarizeSweep).
type SweepOptions struct {
	Options
	Rates     []float64
	Fractions []float64
	SLO       time.Duration
}

// Check says what is wrong with the sweep asked for: every problem is bad input (exit 2),
// found before any server starts; never a silent closed loop.
func (o SweepOptions) Check() error {
	switch {
	case len(o.Rates) > 0 && len(o.Fractions) > 0:
		return errors.New("--rates and --fractions: give one, not both")
	case len(o.Rates) == 0 && len(o.Fractions) == 0 && o.SLO != 0:
		return errors.New("--slo needs the rates to judge: give --rates or --fractions")
	case len(o.Rates) == 0 && len(o.Fractions) == 0:
		return errors.New("give --rates (requests/s, e.g. 10000,20000) or --fractions (of each target's closed-loop maximum, e.g. 0.25,0.5,0.75,0.9)")
	case o.SLO < 0:
		return fmt.Errorf("--slo must be above 0 (got %s)", o.SLO)
	case o.LagTolerance < 0:
		return fmt.Errorf("--lag-tolerance must be above 0 (got %s)", o.LagTolerance)
	case len(o.Targets) == 0:
		return errors.New("--targets is required, e.g. --targets binding,uws")
	}
	for _, r := range o.Rates {
		if !(r > 0) {
			return fmt.Errorf("--rates: every rate must be above 0 requests/s (got %g)", r)
		}
	}
	for _, f := range o.Fractions {
		if !(f > 0 && f <= 1) {
			return fmt.Errorf("--fractions: every fraction must be in (0, 1] (got %g)", f)
		}
	}
	seen := map[string]bool{}
	for _, t := range o.Targets {
		if seen[t] {
			return fmt.Errorf("target %q listed twice", t)
		}
		seen[t] = true
	}
	return nil
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

// Sweep runs a sweep session and writes its files. Exit status: 0 when it finished (whatever
// the SLO says; "none" is a result), 2 on bad input, an error or an incomplete session.
func Sweep(ctx context.Context, o SweepOptions) int {
	prog := NewProgress(o.Stderr)
	ss, err := newSweepSession(ctx, o, prog)
	if err != nil {
		return setUpFailed(prog, o.Stderr, "sweep", err)
	}
	defer ss.st.close()
	cut := ss.measure(ctx)
	prog.Done()
	if cut != nil {
		ss.sw.Incomplete = interruptReason(ctx, cut)
	}
	stats.SummarizeSweep(&ss.sw)
	ss.sw.Finished = time.Now().UTC()
	return finish("sweep", o.Stderr, ss.sw.Incomplete, ss.write, ss.print)
}

// newSweepSession checks o, sets the sweep up (setUp: targets resolved and verified) and
// creates the session directory.
func newSweepSession(ctx context.Context, o SweepOptions, prog *Progress) (*sweepSession, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	pl, err := planOf(o.Profile)
	if err != nil {
		return nil, err
	}
	pl.LagTolerance = o.LagTolerance
	if pl.Loadgen == "wrk" {
		return nil, errors.New("--loadgen wrk drives closed loops only: a sweep needs the builtin load generator")
	}
	ss := &sweepSession{o: o, race: o.Profile.Races()[0]}
	if ss.sc, err = scenario.ByName(ss.race.Scenario); err != nil {
		return nil, fmt.Errorf("bad flag value --scenario: %w", err)
	}
	ss.sw = session.Sweep{Kind: "sweep", Targets: o.Targets, Scenario: ss.sc.Name, Unit: unitOf(ss.sc), Rates: o.Rates,
		Fractions: o.Fractions, SLOMs: float64(o.SLO) / float64(time.Millisecond)}
	ss.sw.Shape = o.shape(pl, ss.sc.Name, ss.race.Connections, ss.race.Pipelining)
	method := append(methodLines(pl), "sweep: one open-loop run per target at each rate, the targets' order alternating from one rate to the next")
	ss.st, err = setUp(ctx, &ss.o.Options, pl, prog, o.Targets, []scenario.Scenario{ss.sc}, method, func(man *session.Manifest) {
		logWarnings(prog, &ss.sw.Warnings, man)
		prog.Logf("sweep %s: profile %s, %s, %d points × %s", strings.Join(o.Targets, ","), pl.Profile, racesText([]profile.Race{ss.race}),
			max(len(o.Rates), len(o.Fractions)), pl.Duration)
	})
	if err != nil {
		return nil, err
	}
	ss.sw.Started = ss.st.started
	if ss.dir, err = ss.st.makeDir(o.Out, "sweep", o.Targets); err != nil {
		return nil, err
	}
	return ss, nil
}
