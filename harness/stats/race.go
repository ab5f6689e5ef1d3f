package stats

import (
	"fmt"
	"sort"

	"github.com/bindrace/bindrace/harness/session"
)

// Summarize computes a race's statistics from its pairs and returns a Summary with them filled
// in: Kind, A, B, Scenario (from the first pair), Pairs (DeltaPct recomputed for valid pairs so
// it always agrees with the runs), MedianDeltaPct, Min/MaxDeltaPct, CI95Pct, Wins,
// OrderEffectPct, P95DeltaPct, P99DeltaPct, StatsA, StatsB, Thresholds, Counters (the median
// per-response value per side, only when runs carry counters) and Warnings about pairs left out
// or client-bound runs. The caller fills the rest (shape, versions, verdict, times).
//
// Pair deltas are DeltaPct(A.RPS, B.RPS): positive means A is faster. The median delta is the
// median of the per-pair deltas, not the delta of the medians: each pair ran back to back on the
// same machine state, so its ratio cancels slow drift that the side medians would carry.
func Summarize(pairs []session.Pair, th session.Thresholds, seed int64) session.Summary {
	s := session.Summary{Kind: "race", Thresholds: th}
	s.Pairs = make([]session.Pair, len(pairs))
	copy(s.Pairs, pairs)
	if len(pairs) > 0 {
		s.A, s.B, s.Scenario = pairs[0].A.Target, pairs[0].B.Target, pairs[0].A.Scenario
	}

	var deltas, ab, ba []float64
	var runsA, runsB []session.Run
	var skipped []int
	for i := range s.Pairs {
		p := &s.Pairs[i]
		runsA, runsB = append(runsA, p.A), append(runsB, p.B)
		if !PairValid(*p) {
			skipped = append(skipped, p.Index)
			continue
		}
		p.DeltaPct = DeltaPct(p.A.RPS, p.B.RPS)
		deltas = append(deltas, p.DeltaPct)
		if p.DeltaPct > 0 {
			s.Wins++
		}
		switch p.Order {
		case "AB":
			ab = append(ab, p.DeltaPct)
		case "BA":
			ba = append(ba, p.DeltaPct)
		}
	}

	s.MedianDeltaPct = finite(Median(deltas))
	s.MinDeltaPct = finite(Min(deltas))
	s.MaxDeltaPct = finite(Max(deltas))
	lo, hi := BootstrapMedianCI(deltas, Resamples, seed)
	s.CI95Pct = [2]float64{finite(lo), finite(hi)}
	// Order effect is only defined with both orders present; otherwise 0 (and with one pair
	// there is nothing to balance anyway).
	if len(ab) > 0 && len(ba) > 0 {
		s.OrderEffectPct = Mean(ab) - Mean(ba)
	}

	s.StatsA, s.StatsB = Side(runsA), Side(runsB)
	s.P95DeltaPct = finite(DeltaPct(s.StatsA.MedianP95Ms, s.StatsB.MedianP95Ms))
	s.P99DeltaPct = finite(DeltaPct(s.StatsA.MedianP99Ms, s.StatsB.MedianP99Ms))
	s.Counters = medianCounters(runsA, runsB)

	if len(skipped) > 0 {
		s.Warnings = AppendWarning(s.Warnings, fmt.Sprintf(
			"%d of %d pairs left out of the statistics because a run failed (pairs %v); they stay in the report",
			len(skipped), len(pairs), skipped))
	}
	if len(deltas) == 0 && len(pairs) > 0 {
		s.Warnings = AppendWarning(s.Warnings, "no pair finished: every delta and interval is 0 and means nothing")
	}
	if w := clientBoundWarning(append(runsA, runsB...)); w != "" {
		s.Warnings = AppendWarning(s.Warnings, w)
	}
	return s
}

// medianCounters returns side -> counter -> median per-response value over the runs that carry
// it, or nil when no run has counters (the orchestrator then fills Summary.Counters from a
// separate counters run).
func medianCounters(a, b []session.Run) map[string]map[string]float64 {
	side := func(runs []session.Run) map[string]float64 {
		vals := map[string][]float64{}
		for _, r := range runs {
			if !RunValid(r) {
				continue
			}
			for k, v := range r.Counters {
				vals[k] = append(vals[k], v)
			}
		}
		out := map[string]float64{}
		for k, vs := range vals {
			out[k] = Median(vs)
		}
		return out
	}
	ca, cb := side(a), side(b)
	if len(ca) == 0 && len(cb) == 0 {
		return nil
	}
	return map[string]map[string]float64{"a": ca, "b": cb}
}

// clientBoundWarning names the runs whose server was not saturated: their throughput is partly
// the load generator's, so a delta between them understates the real difference.
func clientBoundWarning(runs []session.Run) string {
	byTarget := map[string]int{}
	n := 0
	for _, r := range runs {
		if r.ClientBound {
			byTarget[r.Target]++
			n++
		}
	}
	if n == 0 {
		return ""
	}
	names := make([]string, 0, len(byTarget))
	for t := range byTarget {
		names = append(names, t)
	}
	sort.Strings(names)
	detail := ""
	for i, t := range names {
		if i > 0 {
			detail += ", "
		}
		detail += fmt.Sprintf("%s %d", t, byTarget[t])
	}
	return fmt.Sprintf("%d of %d runs were client-bound (%s): the server was not saturated, so throughput there measures the load generator as much as the server",
		n, len(runs), detail)
}

// AppendWarning appends w unless it is already present, so re-summarizing a session does not
// repeat its warnings.
func AppendWarning(ws []string, w string) []string {
	for _, have := range ws {
		if have == w {
			return ws
		}
	}
	return append(ws, w)
}
