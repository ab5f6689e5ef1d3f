package stats

import "github.com/bindrace/bindrace/harness/session"

// RunValid reports whether a run finished and measured something. A run that crashed or was
// cut short stays in the session (nothing is dropped quietly) but cannot enter the statistics.
func RunValid(r session.Run) bool {
	return r.Error == "" && r.RPS > 0
}

// PairValid reports whether both runs of a pair are valid, so its delta means something.
func PairValid(p session.Pair) bool {
	return RunValid(p.A) && RunValid(p.B)
}

// Field extracts one figure from each valid run, in order; the report uses it for the figures
// SideStats does not keep (p50, p99.9, startup, ...).
func Field(runs []session.Run, f func(session.Run) float64) []float64 {
	var xs []float64
	for _, r := range runs {
		if RunValid(r) {
			xs = append(xs, f(r))
		}
	}
	return xs
}

// positive keeps values above zero: heap and similar figures are 0 when a target does not report
// them, and a median over those zeros would invent a measurement.
func positive(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if x > 0 {
			out = append(out, x)
		}
	}
	return out
}

// Side summarises one side's runs. Throughput and latency figures come from valid runs only;
// Errors counts every run's errors, failed runs included, because errors are what the gate
// must see.
func Side(runs []session.Run) session.SideStats {
	rps := Field(runs, func(r session.Run) float64 { return r.RPS })
	var errs int64
	for _, r := range runs {
		errs += r.Errors
	}
	return session.SideStats{
		MedianRPS:    finite(Median(rps)),
		MeanRPS:      finite(Mean(rps)),
		StddevRPS:    finite(Stddev(rps)),
		CVPct:        finite(CVPct(rps)),
		MinRPS:       finite(Min(rps)),
		MaxRPS:       finite(Max(rps)),
		MedianP95Ms:  finite(Median(Field(runs, func(r session.Run) float64 { return r.P95Ms }))),
		MedianP99Ms:  finite(Median(Field(runs, func(r session.Run) float64 { return r.P99Ms }))),
		MedianCPUPct: finite(Median(Field(runs, func(r session.Run) float64 { return r.ServerCPUPct }))),
		MedianRSSMiB: finite(Median(positive(Field(runs, func(r session.Run) float64 { return r.RSSMiB })))),
		MedianHeap:   finite(Median(positive(Field(runs, func(r session.Run) float64 { return r.HeapMiB })))),
		Errors:       errs,
	}
}
