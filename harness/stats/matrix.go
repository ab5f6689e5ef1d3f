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
		valid := 0
		for _, r := range runs {
			if r.Target == t {
				mine = append(mine, r)
				if RunValid(r) {
					valid++
				}
			}
		}
		out = append(out, session.TargetStats{Target: t, Runs: valid, SideStats: Side(mine)})
	}
	best := 0.0
	for _, t := range out {
		best = max(best, t.MeanRPS)
	}
	for i := range out {
		if best > 0 {
			out[i].VsBestPct = finite(DeltaPct(out[i].MeanRPS, best))
		}
	}
	return out
}

// SlotCorrelation is the Pearson correlation of normalized throughput with slot. Each valid
// run's rps is divided by the mean rps of its own target, so targets of very different speed
// become comparable and only the position effect is left: r > 0 means later slots ran faster
// (warming), r < 0 slower (heat, throttling). ok is false when undefined (fewer than two valid
// runs, or every run in the same slot).
func SlotCorrelation(runs []session.Run) (r float64, ok bool) {
	var slots, norm []float64
	for _, p := range Normalized(runs) {
		slots = append(slots, float64(p.Slot))
		norm = append(norm, p.Normalized)
	}
	return Pearson(slots, norm)
}

// Normalized is each valid run's throughput divided by the mean throughput of its target's
// valid runs, with its slot, in the order of runs.
func Normalized(runs []session.Run) []session.SlotPoint {
	sums, counts := map[string]float64{}, map[string]int{}
	for _, run := range runs {
		if RunValid(run) {
			sums[run.Target] += run.RPS
			counts[run.Target]++
		}
	}
	var out []session.SlotPoint
	for _, run := range runs {
		if !RunValid(run) {
			continue
		}
		mean := sums[run.Target] / float64(counts[run.Target])
		out = append(out, session.SlotPoint{Target: run.Target, Slot: run.Slot, RPS: run.RPS, Normalized: run.RPS / mean})
	}
	return out
}

// SlotFit is the least-squares line of normalized throughput on slot; nil with fewer than two
// points (a zero slope when every point has the same slot).
func SlotFit(pts []session.SlotPoint) *session.Fit {
	n := float64(len(pts))
	if len(pts) < 2 {
		return nil
	}
	var mx, my float64
	for _, p := range pts {
		mx, my = mx+float64(p.Slot), my+p.Normalized
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for _, p := range pts {
		dx := float64(p.Slot) - mx
		sxx, sxy = sxx+dx*dx, sxy+dx*(p.Normalized-my)
	}
	k := 0.0
	if sxx != 0 {
		k = sxy / sxx
	}
	return &session.Fit{Slope: k, Intercept: my - k*mx}
}

// SummarizeMatrix fills m.PerTarget, m.Normalized, m.SlotFit and m.SlotCorrelation from
// m.Runs and m.Targets (stats is their one writer). An
// undefined correlation is stored as 0 with a warning, since 0 alone would read as "no bias".
func SummarizeMatrix(m *session.Matrix) {
	m.PerTarget = PerTarget(m.Targets, m.Runs)
	m.Normalized = Normalized(m.Runs)
	m.SlotFit = SlotFit(m.Normalized)
	r, ok := SlotCorrelation(m.Runs)
	m.SlotCorrelation = r
	if !ok {
		m.Warnings = AppendWarning(m.Warnings, "slot correlation undefined (too few valid runs or no variation): position bias not checked")
	}
	if w := clientBoundWarning(m.Runs); w != "" {
		m.Warnings = AppendWarning(m.Warnings, w)
	}
}
