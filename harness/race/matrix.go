package race

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/report"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// Matrix runs a matrix session: every target once per round, each round in an order shuffled
// from the seed, and writes its files. It returns the exit status: 0, or 2 on an error or an
// incomplete session.
func Matrix(ctx context.Context, o Options) int {
	prog := NewProgress(o.Stderr)
	failSetup := func(err error) int {
		prog.Done()
		fmt.Fprintf(o.Stderr, "bindrace matrix: %v\n", err)
		return 2
	}
	seen := map[string]bool{}
	for _, t := range o.Targets {
		if seen[t] {
			return failSetup(fmt.Errorf("target %q listed twice", t))
		}
		seen[t] = true
	}
	pl, err := planOf(o.Profile)
	if err != nil {
		return failSetup(err)
	}
	races := o.Profile.Races()
	r := races[0]
	sc, err := scenario.ByName(r.Scenario)
	if err != nil {
		return failSetup(fmt.Errorf("bad flag value --scenario: %w", err))
	}
	if !o.SeedSet {
		o.Seed = NewSeed()
	}
	eng := newEngine(pl, prog, o.ServerLog)
	defer eng.stopAll()
	if err := eng.resolve(o.Targets...); err != nil {
		return failSetup(err)
	}
	started := time.Now().UTC()
	man := machine.Environment(o.Command)
	man.Targets = map[string]map[string]string{}
	for _, t := range o.Targets {
		man.Targets[t] = eng.resolved[t].Versions()
	}
	man.Method = append(methodLines(pl), fmt.Sprintf("matrix: %d rounds, each in an order shuffled from seed %d (math/rand/v2 PCG)", o.Profile.Rounds, o.Seed))
	var warnings []string
	if len(races) > 1 {
		warnings = append(warnings, fmt.Sprintf("a matrix covers one race: %s (connections %d, pipelining %d); the profile's other races were not run", r.Scenario, r.Connections, r.Pipelining))
	}
	warnings = append(warnings, man.Warnings...)
	for _, w := range warnings {
		prog.Logf("warning: %s", w)
	}
	restore, err := machine.PinSelf(pl.CPUsClient)
	if err != nil {
		return failSetup(err)
	}
	defer restore()

	orders := MatrixOrders(o.Targets, o.Profile.Rounds, o.Seed)
	prog.Logf("matrix %s: profile %s, %s, %d rounds × %s, seed %d", strings.Join(o.Targets, ","), pl.Profile, racesText(races[:1]), len(orders), pl.Duration, o.Seed)
	if err := eng.preflight(ctx, o.Targets, []scenario.Scenario{sc}); err != nil {
		if ctx.Err() != nil {
			return failSetup(fmt.Errorf("%s before measuring; nothing saved", interruptReason(ctx, err)))
		}
		return failSetup(err)
	}
	dir := o.Out
	if dir == "" {
		dir = filepath.Join(resultsDir(), started.Format("20060102-150405")+"-matrix-"+session.SafeName(strings.Join(o.Targets, "-")))
	}
	if err := session.CreateDir(dir); err != nil {
		return failSetup(err)
	}

	var runs []session.Run
	var cut error
rounds:
	for ri, order := range orders {
		for slot, name := range order {
			label := fmt.Sprintf("round %d/%d slot %d %s", ri+1, len(orders), slot+1, name)
			run, err := eng.measure(ctx, runSpec{target: name, sc: sc, connections: r.Connections, pipelining: r.Pipelining, slot: slot, label: label})
			runs = append(runs, run)
			if err != nil {
				prog.Logf("%s: %v", label, err)
				cut = err
				break rounds
			}
			last := ri == len(orders)-1 && slot == len(order)-1
			if !last && !eng.cooldown(ctx, label) {
				cut = fmt.Errorf("%w during cooldown", ErrInterrupted)
				break rounds
			}
		}
	}
	prog.Done()

	m := session.Matrix{
		Kind: "matrix", Targets: o.Targets, Scenario: r.Scenario, Unit: unitOf(sc), Seed: o.Seed, Orders: orders, Runs: runs,
		Warnings: warnings, Started: started,
	}
	m.Shape = o.shape(pl, r.Scenario, r.Connections, r.Pipelining)
	m.Shape.Rounds, m.Shape.Seed = len(orders), o.Seed
	if cut != nil {
		m.Incomplete = interruptReason(ctx, cut)
	}
	stats.SummarizeMatrix(&m)
	m.Finished = time.Now().UTC()

	werr := session.WriteJSON(filepath.Join(dir, session.SummaryFile), m)
	if werr == nil {
		werr = session.WriteJSON(filepath.Join(dir, session.RawFile), session.Raw{Runs: runs})
	}
	if werr == nil {
		werr = session.WriteJSON(filepath.Join(dir, session.ManifestFile), man)
	}
	if werr == nil {
		werr = report.WriteAll(dir)
	}
	if werr != nil {
		fmt.Fprintf(o.Stderr, "bindrace matrix: %v\n", werr)
	}

	if o.JSON {
		printJSON(o.Stdout, m)
	} else {
		for _, t := range m.PerTarget {
			fmt.Fprintf(o.Stderr, "  %-16s median %s %s  CV %.1f%%  p99 %.2f ms  server CPU %.0f%%\n", t.Target, Thousands(t.MedianRPS), rateUnit(sc), t.CVPct, t.MedianP99Ms, t.MedianCPUPct)
		}
		for _, w := range m.Warnings {
			fmt.Fprintf(o.Stderr, "  warning: %s\n", w)
		}
		fmt.Fprintf(o.Stderr, "results: %s\n", dir)
		fmt.Fprintln(o.Stdout, matrixHeadline(&m))
	}
	if m.Incomplete != "" || werr != nil {
		return 2
	}
	return 0
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
