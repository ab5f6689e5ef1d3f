package stats

import (
	"fmt"
	"sort"

	"github.com/bindrace/bindrace/harness/session"
)

// SummarizeSweep fills sw.PerTarget: per target, its finished points, the generator-bound ones
// among them and, with an SLO, the highest asked rate up to which p99 stayed at or under it:
// walking the target's rates upwards, the last one before the first whose p99 crossed the SLO
// (a noisy point under the SLO past a crossing does not count). A generator-bound point
// measured the load generator as much as the server, so it neither sets nor ends that rate; a
// warning names such points. The runs' histograms are left to raw.json.
func SummarizeSweep(sw *session.Sweep) {
	sw.PerTarget = nil
	bound := 0
	for i := range sw.Points {
		sw.Points[i].Run.Hist = ""
	}
	for _, t := range sw.Targets {
		st := session.SweepTarget{Target: t}
		var mine []session.SweepPoint
		for _, p := range sw.Points {
			if p.Target == t && RunValid(p.Run) {
				mine = append(mine, p)
			}
		}
		sort.SliceStable(mine, func(i, j int) bool { return mine[i].Rate < mine[j].Rate })
		crossed := sw.SLOMs <= 0
		for _, p := range mine {
			st.Points++
			switch {
			case p.Run.Open != nil && p.Run.Open.GeneratorBound:
				st.GeneratorBound++
			case crossed:
			case p.Run.P99Ms > sw.SLOMs:
				crossed = true
			default:
				r := p.Rate
				st.SLORate = &r
			}
		}
		bound += st.GeneratorBound
		sw.PerTarget = append(sw.PerTarget, st)
	}
	if bound > 0 {
		sw.Warnings = AppendWarning(sw.Warnings, fmt.Sprintf(
			"%d points were generator-bound (the load generator's send lag p99 above its tolerance): they are marked, and none of them sets or ends a target's rate under the SLO", bound))
	}
}
