package race

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// Matrix runs a matrix session: every target once per round, each round in an order shuffled
// from the seed, and writes its files. It returns the exit status: 0, or 2 on an error or an
// incomplete session.
func Matrix(ctx context.Context, o Options) int {
	prog := NewProgress(o.Stderr)
	ms, err := newMatrixSession(ctx, &o, prog)
	if err != nil {
		return setUpFailed(prog, o.Stderr, "matrix", err)
	}
	defer ms.st.close()
	runs, cut := ms.rounds(ctx)
	prog.Done()

	r := ms.race
	m := session.Matrix{
		Kind: "matrix", Targets: o.Targets, Scenario: r.Scenario, Unit: unitOf(ms.sc), Seed: o.Seed, Orders: ms.orders, Runs: runs,
		Warnings: ms.warnings, Started: ms.st.started,
	}
	m.Shape = o.shape(ms.pl, r.Scenario, r.Connections, r.Pipelining)
	m.Shape.Rounds, m.Shape.Seed = len(ms.orders), o.Seed
	if cut != nil {
		m.Incomplete = interruptReason(ctx, cut)
	}
	stats.SummarizeMatrix(&m)
	m.Finished = time.Now().UTC()
	return finish("matrix", o.Stderr, m.Incomplete, func() error { return ms.write(&m, runs) }, func() { ms.print(&m) })
}

// matrixSession is a matrix once it is set up.
type matrixSession struct {
	o        *Options
	pl       Plan
	st       *setup
	race     profile.Race // a matrix covers one race: the profile's first
	sc       scenario.Scenario
	orders   [][]string
	warnings []string
	dir      string
}

// newMatrixSession checks o, shuffles the rounds' orders, sets the matrix up (setUp) and
// creates the session directory.
func newMatrixSession(ctx context.Context, o *Options, prog *Progress) (*matrixSession, error) {
	seen := map[string]bool{}
	for _, t := range o.Targets {
		if seen[t] {
			return nil, fmt.Errorf("target %q listed twice", t)
		}
		seen[t] = true
	}
	pl, err := planOf(o.Profile)
	if err != nil {
		return nil, err
	}
	races := o.Profile.Races()
	ms := &matrixSession{o: o, pl: pl, race: races[0]}
	if ms.sc, err = scenario.ByName(ms.race.Scenario); err != nil {
		return nil, fmt.Errorf("bad flag value --scenario: %w", err)
	}
	if err := checkDBSession(*o, pl, o.Targets, []scenario.Scenario{ms.sc}); err != nil {
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
	method := append(methodLines(pl), fmt.Sprintf("matrix: %d rounds, each in an order shuffled from seed %d (math/rand/v2 PCG)", o.Profile.Rounds, o.Seed))
	ms.st, err = setUp(ctx, o, pl, prog, o.Targets, []scenario.Scenario{ms.sc}, method, func(man *session.Manifest) {
		logWarnings(prog, &ms.warnings, man)
		prog.Logf("matrix %s: profile %s, %s, %d rounds × %s, seed %d", strings.Join(o.Targets, ","), pl.Profile, racesText(races[:1]), len(ms.orders), pl.Duration, o.Seed)
	})
	if err != nil {
		return nil, err
	}
	if ms.dir, err = ms.st.makeDir(o.Out, "matrix", o.Targets); err != nil {
		return nil, err
	}
	return ms, nil
}

// rounds runs every round's targets in its order, with a cooldown between runs; it stops at
// the first failed run or an interrupt, returning that as cut.
func (ms *matrixSession) rounds(ctx context.Context) (runs []session.Run, cut error) {
	eng, r := ms.st.eng, ms.race
	for ri, order := range ms.orders {
		for slot, name := range order {
			label := fmt.Sprintf("round %d/%d slot %d %s", ri+1, len(ms.orders), slot+1, name)
			run, err := eng.measure(ctx, runSpec{target: name, sc: ms.sc, connections: r.Connections, pipelining: r.Pipelining, slot: slot, label: label})
			runs = append(runs, run)
			if err != nil {
				eng.prog.Logf("%s: %v", label, err)
				return runs, err
			}
			last := ri == len(ms.orders)-1 && slot == len(order)-1
			if !last && !eng.cooldown(ctx, label) {
				return runs, fmt.Errorf("%w during cooldown", ErrInterrupted)
			}
		}
	}
	return runs, nil
}

// write writes the matrix's summary.json, raw.json and manifest.json, then its reports.
func (ms *matrixSession) write(m *session.Matrix, runs []session.Run) error {
	return writeSession(ms.dir, m, session.Raw{Runs: runs}, ms.st.man)
}

// print prints summary.json with JSON, else each target's figures and the headline.
func (ms *matrixSession) print(m *session.Matrix) {
	o := ms.o
	if o.JSON {
		session.PrintJSON(o.Stdout, m)
		return
	}
	for _, t := range m.PerTarget {
		fmt.Fprintf(o.Stderr, "  %-16s median %s %s  CV %.1f%%  p99 %.2f ms  server CPU %.0f%%\n", t.Target, Thousands(t.MedianRPS), rateUnit(ms.sc), t.CVPct, t.MedianP99Ms, t.MedianCPUPct)
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(o.Stderr, "  warning: %s\n", w)
	}
	fmt.Fprintf(o.Stderr, "results: %s\n", ms.dir)
	fmt.Fprintln(o.Stdout, matrixHeadline(m))
}

func matrixHeadline(m *session.Matrix) string {
	var parts []string
	for _, t := range m.PerTarget {
		unit := m.Unit
		if unit == "" {
			unit = "rps"
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", t.Target, Thousands(t.MedianRPS), unit))
	}
	line := fmt.Sprintf("matrix %s: %s; slot correlation %+.2f (seed %d)", m.Scenario, strings.Join(parts, ", "), m.SlotCorrelation, m.Seed)
	if m.Incomplete != "" {
		line += "; INCOMPLETE (" + m.Incomplete + ")"
	}
	return line
}
