package stats

import (
	"fmt"
	"sort"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/session"
)

// Summarize computes a race's statistics from its pairs and returns a Summary with them filled
// in: Kind, SchemaVersion, A, B, Scenario (from the first pair), Pairs (DeltaPct recomputed for
// valid pairs so it always agrees with the runs), the paired deltas of throughput, throughput
// per server CPU-second, p50, p95 and p99 with their order-statistic intervals at every look of
// design d (MedianDeltaPct, CIPct and the Paired map; client-bound runs enter the throughput
// interval at their bound), Wins, OrderEffectPct, StatsA, StatsB, Runtime (the table the reports
// show), MergedA and MergedB (all requests of a side, from the runs' histograms, which the
// summary's pairs then leave to raw.json), Thresholds, Design, CILevel (1 - 2·alpha), Counters
// (the median per-response value per side, only when runs carry counters) and Warnings about
// pairs left out or client-bound runs. The caller fills the rest (shape, sides, verdict).
//
// Pair deltas are DeltaPct(A, B): positive means A's figure is higher. The median delta is the
// median of the per-pair deltas, not the delta of the medians: each pair ran back to back on the
// same machine state, so its ratio cancels slow drift that the side medians would carry.
func Summarize(pairs []session.Pair, th session.Thresholds, d *session.Design) session.Summary {
	return session.RaceOf(Figures(pairs, d), th, d)
}

// Figures are the statistics of pairs under design d: what Summarize records (session.Figures,
// whose one writer this is).
func Figures(pairs []session.Pair, d *session.Design) session.Figures {
	s := session.Figures{CILevel: 1 - 2*d.Alpha}
	s.Pairs = make([]session.Pair, len(pairs))
	copy(s.Pairs, pairs)

	var ab, ba []float64
	var runsA, runsB, valid []session.Run
	var skipped []int
	for i := range s.Pairs {
		p := &s.Pairs[i]
		runsA, runsB = append(runsA, p.A), append(runsB, p.B)
		if !PairValid(*p) {
			skipped = append(skipped, p.Index)
			continue
		}
		valid = append(valid, p.A, p.B)
		p.DeltaPct = ThroughputDelta(*p)
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

	s.Paired = map[string]session.Paired{}
	for _, m := range PairedMetrics {
		if pd, ok := pairedDelta(s.Pairs, m.Get, d); ok {
			s.Paired[m.Name] = pd
		}
	}
	if rps, ok := s.Paired[MetricRPS]; ok {
		s.Paired[MetricRPS] = boundThroughput(rps, s.Pairs, d)
	}
	if rps, ok := s.Paired[MetricRPS]; ok {
		s.MedianDeltaPct, s.MinDeltaPct, s.MaxDeltaPct = rps.MedianPct, rps.MinPct, rps.MaxPct
		s.CIPct, s.CIConfidence = rps.CIPct, rps.Confidence
	}
	// Order effect is only defined with both orders present; otherwise 0 (and with one pair
	// there is nothing to balance anyway).
	if len(ab) > 0 && len(ba) > 0 {
		s.OrderEffectPct = Mean(ab) - Mean(ba)
	}

	s.StatsA, s.StatsB = Side(runsA), Side(runsB)
	s.Runtime = Runtime(runsA, runsB, s.MedianDeltaPct)
	s.PerfCounters = medianCounters(runsA, runsB)
	s.Sampled = sampledSides(runsA, runsB)

	if len(skipped) > 0 {
		s.PairWarnings = AppendWarning(s.PairWarnings, fmt.Sprintf(
			"%d of %d pairs left out of the statistics because a run failed (pairs %v); they stay in the report",
			len(skipped), len(pairs), skipped))
	}
	if len(valid) == 0 && len(pairs) > 0 {
		s.PairWarnings = AppendWarning(s.PairWarnings, "no pair finished: every delta is 0 and means nothing")
	}
	if w := clientBoundWarning(append(runsA, runsB...)); w != "" {
		s.PairWarnings = AppendWarning(s.PairWarnings, w)
	}
	if w := busyWarning(append(runsA, runsB...)); w != "" {
		s.PairWarnings = AppendWarning(s.PairWarnings, w)
	}
	if w := generatorBoundWarning(append(runsA, runsB...)); w != "" {
		s.PairWarnings = AppendWarning(s.PairWarnings, w)
	}
	mergeSides(&s, runsA, runsB)
	return s
}

// busyWarning names the runs that started on a machine doing something else, or losing time
// to its hypervisor: their figures carry that noise.
func busyWarning(runs []session.Run) string {
	n := 0
	var busy, steal float64
	for _, r := range runs {
		if r.BusyPct > machine.BusyWarnPct || r.StealPct > machine.StealWarnPct {
			n++
		}
		busy, steal = max(busy, r.BusyPct), max(steal, r.StealPct)
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d runs started on a busy machine (in the second before: up to %.0f%% of the CPUs busy, %.1f%% stolen by the hypervisor; limits %d%% and %d%%): their figures include that noise",
		n, len(runs), busy, steal, machine.BusyWarnPct, machine.StealWarnPct)
}

// Names of the paired metrics in Summary.Paired.
const (
	MetricRPS          = "rps"
	MetricRPSPerCPUSec = "rps_per_cpu_second"
	MetricP50          = "p50_ms"
	MetricP95          = "p95_ms"
	MetricP99          = "p99_ms"
	// MetricSyscalls is the server's system calls per response under the live load.
	MetricSyscalls = "syscalls_per_response"
)

// PairedMetrics are the figures compared pair by pair. A pair counts for a metric only when both
// of its runs finished and measured the figure (a run without CPU samples has no
// rps_per_cpu_second).
var PairedMetrics = []struct {
	Name string
	Get  func(session.Run) float64
}{
	{MetricRPS, nil}, // ThroughputDelta
	{MetricRPSPerCPUSec, func(r session.Run) float64 { return r.RPSPerCPUSecond }},
	{MetricP50, func(r session.Run) float64 { return r.P50Ms }},
	{MetricP95, func(r session.Run) float64 { return r.P95Ms }},
	{MetricP99, func(r session.Run) float64 { return r.P99Ms }},
	{MetricSyscalls, func(r session.Run) float64 { return r.SyscallsPerResponse }},
}

// ThroughputDelta is a pair's throughput delta, A against B in percent. A pair measured in
// interleaved windows (Run.Windows, A's window w and B's window w a moment apart) gives the
// median of its per-window deltas: each compares the two sides at the same moment, so the
// machine's swings cancel, and the median stands against a stretch of slow windows on one side
// (a process in a poor batching regime for a few seconds; docs/noise.md). A uniform change of
// speed moves every window delta, hence the median, by itself. Otherwise: the runs' throughput.
func ThroughputDelta(p session.Pair) float64 {
	a, b := p.A.Windows, p.B.Windows
	if len(a) < 2 || len(a) != len(b) {
		return DeltaPct(p.A.RPS, p.B.RPS)
	}
	ds := make([]float64, 0, len(a))
	for w := range a {
		if a[w] > 0 && b[w] > 0 {
			ds = append(ds, DeltaPct(a[w], b[w]))
		}
	}
	if len(ds) == 0 {
		return DeltaPct(p.A.RPS, p.B.RPS)
	}
	return Median(ds)
}

// PairDeltas are one metric's per-pair deltas of the valid pairs, in pair order (get nil:
// throughput, ThroughputDelta). A pair counts for a metric only when both of its runs measured
// it.
func PairDeltas(pairs []session.Pair, get func(session.Run) float64) []float64 {
	var deltas []float64
	for _, p := range pairs {
		if !PairValid(p) {
			continue
		}
		if get == nil {
			deltas = append(deltas, ThroughputDelta(p))
			continue
		}
		a, b := get(p.A), get(p.B)
		if a > 0 && b > 0 {
			deltas = append(deltas, DeltaPct(a, b))
		}
	}
	return deltas
}

// pairedDelta summarises one metric's per-pair deltas at the looks of d; false when no pair
// measured it.
func pairedDelta(pairs []session.Pair, get func(session.Run) float64, d *session.Design) (session.Paired, bool) {
	deltas := PairDeltas(pairs, get)
	if len(deltas) == 0 {
		return session.Paired{}, false
	}
	pd := session.Paired{MedianPct: Median(deltas), N: len(deltas), MinPct: Min(deltas), MaxPct: Max(deltas)}
	pd.Looks = LooksOf(d, deltas)
	if len(pd.Looks) > 0 {
		last := pd.Looks[len(pd.Looks)-1]
		pd.CIPct = last.Interval
		if last.Interval != nil {
			pd.Confidence = finite(Coverage(d, last.Pairs))
		}
	}
	return pd, true
}

// boundThroughput widens the throughput interval at every look to the pessimistic views of
// clientbound.go: its low end from the deltas with B's client-bound runs at their bound, its
// high end from those with A's.
func boundThroughput(pd session.Paired, pairs []session.Pair, d *session.Design) session.Paired {
	withB, nb := boundedPairs(pairs, "b")
	withA, na := boundedPairs(pairs, "a")
	if na+nb == 0 {
		return pd
	}
	lows, highs := LooksOf(d, PairDeltas(withB, nil)), LooksOf(d, PairDeltas(withA, nil))
	looks := make([]session.Look, len(pd.Looks))
	for i, l := range pd.Looks {
		if l.Interval != nil {
			l.Interval = &[2]float64{lows[i].Interval[0], highs[i].Interval[1]}
		}
		looks[i] = l
	}
	pd.Looks, pd.BoundedRuns = looks, na+nb
	if len(looks) > 0 {
		pd.CIPct = looks[len(looks)-1].Interval
	}
	return pd
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

// Redesign gives a summary written before schema 3 its design (the one write into a Raced record
// outside the race kind: the session predates the record of its design) — one look after all its pairs,
// at the level it recorded — and recomputes its paired figures at that look from its pairs, so
// the gate judges an old session by today's rules (client-bound runs at their bound) with the
// intervals it had.
func Redesign(s *session.Summary) {
	if s.Paired == nil {
		s.Paired = map[string]session.Paired{}
	}
	if s.Design != nil {
		return
	}
	s.Design = FixedDesign(len(s.Pairs), (1-s.CILevel)/2)
	for _, m := range PairedMetrics {
		if pd, ok := pairedDelta(s.Pairs, m.Get, s.Design); ok {
			s.Paired[m.Name] = pd
		}
	}
	if rps, ok := s.Paired[MetricRPS]; ok {
		s.Paired[MetricRPS] = boundThroughput(rps, s.Pairs, s.Design)
		s.CIPct, s.CIConfidence = s.Paired[MetricRPS].CIPct, s.Paired[MetricRPS].Confidence
	}
}
