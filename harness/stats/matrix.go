package stats

import (
	"github.com/bindrace/bindrace/harness/session"
)

// PerTarget returns one row per target, in the order given, from that target's runs. Targets
// without runs still get a (zero) row so the table shows they were part of the matrix.
func PerTarget(targets []string, runs []session.Run) []session.TargetStats {
	out := make([]session.TargetStats, 0, len(targets))
	for _, t := range targets {
		var mine []session.Run
		for _, r := range runs {
			if r.Target == t {
				mine = append(mine, r)
			}
		}
		out = append(out, session.TargetStats{Target: t, SideStats: Side(mine)})
	}
	return out
}

// SlotCorrelation is the Pearson correlation of normalized throughput with slot. Each valid
// run's rps is divided by the mean rps of its own target, so targets of very different speed
// become comparable and only the position effect is left: r > 0 means later slots ran faster
// (warming), r < 0 slower (heat, throttling). ok is false when undefined (fewer than two valid
// runs, or every run in the same slot).
func SlotCorrelation(runs []session.Run) (r float64, ok bool) {
	sums, counts := map[string]float64{}, map[string]int{}
	for _, run := range runs {
		if RunValid(run) {
			sums[run.Target] += run.RPS
			counts[run.Target]++
		}
	}
	var slots, norm []float64
	for _, run := range runs {
		if !RunValid(run) {
			continue
		}
		mean := sums[run.Target] / float64(counts[run.Target])
		slots = append(slots, float64(run.Slot))
		norm = append(norm, run.RPS/mean)
	}
	return Pearson(slots, norm)
}

// SummarizeMatrix fills m.PerTarget and m.SlotCorrelation from m.Runs and m.Targets. An
// undefined correlation is stored as 0 with a warning, since 0 alone would read as "no bias".
func SummarizeMatrix(m *session.Matrix) {
	m.PerTarget = PerTarget(m.Targets, m.Runs)
	r, ok := SlotCorrelation(m.Runs)
	m.SlotCorrelation = r
	if !ok {
		m.Warnings = AppendWarning(m.Warnings, "slot correlation undefined (too few valid runs or no variation): position bias not checked")
	}
	if w := clientBoundWarning(m.Runs); w != "" {
		m.Warnings = AppendWarning(m.Warnings, w)
	}
}
