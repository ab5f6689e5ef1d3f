package stats

import (
	"fmt"

	"github.com/bindrace/bindrace/harness/session"
)

// SummarizeSweep fills sw.PerTarget: per target, its finished points, the generator-bound ones
// among them and, with an SLO, the highest asked rate whose p99 stayed at or under it. A
// generator-bound point measured the load generator as much as the server, so it cannot set
// that rate; a warning names such points. It also leaves the runs' histograms to raw.json.
func SummarizeSweep(sw *session.Sweep) {
	sw.PerTarget = nil
	bound := 0
	for _, t := range sw.Targets {
		st := session.SweepTarget{Target: t}
		for i := range sw.Points {
			p := &sw.Points[i]
			p.Run.Hist = ""
			if p.Target != t || !RunValid(p.Run) {
				continue
			}
			st.Points++
			if p.Run.Open != nil && p.Run.Open.GeneratorBound {
				st.GeneratorBound++
				continue
			}
			if sw.SLOMs > 0 && p.Run.P99Ms <= sw.SLOMs && (st.SLORate == nil || p.Rate > *st.SLORate) {
				r := p.Rate
				st.SLORate = &r
			}
		}
		bound += st.GeneratorBound
		sw.PerTarget = append(sw.PerTarget, st)
	}
	if bound > 0 {
		sw.Warnings = AppendWarning(sw.Warnings, fmt.Sprintf(
			"%d points were generator-bound (the load generator's send lag p99 above its tolerance): they are marked, and none of them can set a target's rate under the SLO", bound))
	}
}
