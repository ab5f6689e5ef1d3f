package gate

import (
	"fmt"

	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// A pooled profile (db) gates its races' throughput together. Each race keeps a FAIL-only
// guard: its own interval wholly below the limit FAILs it, so one shape's collapse is not
// averaged away; short of that the race passes its guard and leaves the decision to the pooled
// check, which reads the pooled pairs (stats.PooledEvidence) as any check reads its own. The
// guards share half the false-FAIL budget, the pooled check has the other half in each
// direction (profile.Profile.Alpha, profile.PooledAlpha): against itself a build FAILs at most
// the budget (TestPooledFalseFailBudget).

// guard turns a pooled race's throughput check into its FAIL-only guard.
func guard(c session.Check) session.Check {
	label := metricLabel[c.Metric] + " guard"
	if c.Verdict == session.Fail {
		c.Reason = label + " (its own pairs, FAIL only): " + c.Reason
		return c
	}
	c.PairsNeeded, c.DecidedAt = 0, 0
	if c.Delta == nil {
		// A race that measured nothing (not run, or cut short) guarded nothing: it passes no
		// guard, and the pooled check cannot read it either.
		c.Verdict = session.Inconclusive
		c.Reason = label + ": no complete pair, nothing guarded (the set's pooled check needs every race's pairs)"
		return c
	}
	c.Verdict = session.Pass
	where := "no bounded interval"
	if c.Interval != nil {
		where = fmt.Sprintf("interval [%+.2f%%, %+.2f%%]", c.Interval[0], c.Interval[1])
	}
	c.Reason = fmt.Sprintf("%s: median delta %+.2f%% over %d pairs, %s not wholly below the limit %+.2f%% (FAIL only: the set's pooled check decides throughput)",
		label, *c.Delta, c.N, where, c.Limit)
	return c
}

// Pool is the pooled throughput check of a pooled race set's summaries (in race order), nil
// when they are not pooled.
func Pool(sums []*session.Summary) *session.Check {
	if len(sums) == 0 || !sums[0].Pooled {
		return nil
	}
	s := sums[0]
	metric, limit := decideOn(s), s.Thresholds.MinMedianDeltaPct
	alpha := profile.PooledAlpha(s.FamilyConfidence)
	level := 1 - 2*alpha
	races := make([][]session.Pair, len(sums))
	for i, r := range sums {
		races[i] = r.Pairs
	}
	e := stats.PooledEvidence(races, metric)
	label := "pooled " + metricLabel[metric]
	c := &session.Check{Metric: "pooled:" + metric, Limit: limit, Bound: "min", Verdict: session.Inconclusive, N: len(e.ForPass)}
	if c.N == 0 {
		empty := 0
		for _, r := range sums {
			if len(r.Pairs) == 0 {
				empty++
			}
		}
		c.Reason = label + ": no pair index was measured by every race"
		if empty > 0 {
			c.Reason += fmt.Sprintf(" (%d of %d races measured no pair: not run, or cut short)", empty, len(sums))
		}
		return c
	}
	median := stats.Median(e.ForPass)
	c.Delta = ptr(median)
	head := fmt.Sprintf("%s over %d races: median delta %+.2f%% over %d pooled pairs", label, len(sums), median, c.N)
	iv := stats.PooledInterval(e, level)
	if iv == nil {
		c.Reason = fmt.Sprintf("%s, limit %+.2f%%: too few pooled pairs for a %s interval (need at least %d)", head, limit, PctLevel(level), EvenUp(stats.MinSamples(level)))
		return c
	}
	cov := 1 - 2*stats.FixedDesign(c.N, alpha).Spent[0]
	c.Interval, c.Confidence = iv, ptr(cov)
	switch {
	case iv[0] >= limit:
		c.Verdict, c.DecidedAt = session.Pass, c.N
	case iv[1] < limit:
		c.Verdict, c.DecidedAt = session.Fail, c.N
	default:
		c.PairsNeeded = stats.PairsNeeded(stats.FixedDesign(c.N, alpha), e, limit)
	}
	c.Reason = fmt.Sprintf("%s, %s interval [%+.2f%%, %+.2f%%] (real coverage %s), limit %+.2f%%",
		head, PctLevel(level), iv[0], iv[1], PctLevel(cov), limit)
	if c.Verdict == session.Inconclusive {
		c.Reason += " (the interval straddles the limit; " + neededText(c.PairsNeeded) + ")"
	}
	return c
}
