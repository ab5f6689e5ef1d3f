package stats

import (
	"sort"

	"github.com/bindrace/bindrace/harness/session"
)

// medianSampled is the sampled CPU time of the valid run of runs whose ns per response is the
// median (the lower of the middle two of an even count): one real run's table, whose rows add
// up as they were sampled, rather than a blend of several; nil when no run was sampled.
func medianSampled(runs []session.Run) *session.Sampled {
	var sampled []*session.Sampled
	for _, r := range runs {
		if RunValid(r) && r.Sample != nil && r.Sample.NsPerResponse > 0 {
			sampled = append(sampled, r.Sample)
		}
	}
	if len(sampled) == 0 {
		return nil
	}
	sort.SliceStable(sampled, func(i, j int) bool { return sampled[i].NsPerResponse < sampled[j].NsPerResponse })
	return sampled[(len(sampled)-1)/2]
}

// sampledSides is Summary.Sampled: each side's medianSampled, nil when neither side has one.
func sampledSides(a, b []session.Run) map[string]*session.Sampled {
	out := map[string]*session.Sampled{}
	for side, runs := range map[string][]session.Run{"a": a, "b": b} {
		if s := medianSampled(runs); s != nil {
			out[side] = s
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
