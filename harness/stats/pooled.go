package stats

import (
	"math"

	"github.com/bindrace/bindrace/harness/session"
)

// PooledEvidence pools one metric over the races of a set, pair index by pair index: pooled
// pair i is the geometric mean over the races of their pair i's ratios A/B, as a delta in
// percent. A pair index counts only when every race measured it.
//
// Why pool: where each shape's throughput moves by a factor between runs for reasons of the
// run's own (a database's pace is set when a run starts; docs/statistics.md, "db"), no one
// race's pairs can bound its median within a share of the budget, while the mean over the
// shapes averages that away. Against itself (A/A) every race's pair delta is as likely
// positive as negative and the races' pairs are independent, so a pooled pair is as well: its
// median's order-statistic interval keeps its coverage, whatever the races' spreads.
func PooledEvidence(races [][]session.Pair, metric string) Evidence {
	n := math.MaxInt
	for _, pairs := range races {
		n = min(n, len(pairs))
	}
	var out Evidence
	for i := 0; len(races) > 0 && i < n; i++ {
		var pass, fail float64
		complete := true
		for _, pairs := range races {
			e := EvidenceOf(pairs[i:i+1], metric)
			if len(e.ForPass) == 0 || len(e.ForFail) == 0 {
				complete = false
				break
			}
			pass += math.Log1p(e.ForPass[0] / 100)
			fail += math.Log1p(e.ForFail[0] / 100)
		}
		if !complete {
			continue
		}
		k := float64(len(races))
		out.ForPass = append(out.ForPass, 100*math.Expm1(pass/k))
		out.ForFail = append(out.ForFail, 100*math.Expm1(fail/k))
	}
	return out
}

// PooledInterval is the order-statistic interval at level of pooled evidence, read as a
// throughput check reads its own: its low end off the evidence for a PASS, its high end off
// the evidence for a FAIL (clientbound.go); nil with too few pooled pairs for a bounded one.
func PooledInterval(e Evidence, level float64) *[2]float64 {
	lo, hi := MedianInterval(e.ForPass, level), MedianInterval(e.ForFail, level)
	if math.IsInf(lo.Lo, 0) || math.IsInf(hi.Hi, 0) || math.IsNaN(lo.Lo) || math.IsNaN(hi.Hi) {
		return nil
	}
	return &[2]float64{lo.Lo, hi.Hi}
}
