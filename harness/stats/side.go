package stats

import (
	"math"

	"github.com/bindrace/bindrace/harness/session"
)

// RunValid reports whether a run finished and measured something (session.Run.Valid: the
// decoders hold a saved summary's wins to the same rule).
func RunValid(r session.Run) bool { return r.Valid() }

// PairValid reports whether both runs of a pair are valid, so its delta means something.
func PairValid(p session.Pair) bool { return p.Valid() }

// Field extracts one figure from each valid run, in order.
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

// RuntimeMetrics are the rows of a race's runtime table (Summary.Runtime), in order: the
// throughput, then the figures of each run whose medians the reports show.
var RuntimeMetrics = []struct {
	Key string
	Get func(session.Run) float64
}{
	{MetricRPS, func(r session.Run) float64 { return r.RPS }},
	{MetricRPSPerCPUSec, func(r session.Run) float64 { return r.RPSPerCPUSecond }},
	{"p50_ms", func(r session.Run) float64 { return r.P50Ms }},
	{MetricP95, func(r session.Run) float64 { return r.P95Ms }},
	{MetricP99, func(r session.Run) float64 { return r.P99Ms }},
	{"p999_ms", func(r session.Run) float64 { return r.P999Ms }},
	{"server_cpu_pct", func(r session.Run) float64 { return r.ServerCPUPct }},
	{"rss_mib", func(r session.Run) float64 { return r.RSSMiB }},
	{"peak_rss_mib", func(r session.Run) float64 { return r.PeakRSSMiB }},
	{"heap_mib", func(r session.Run) float64 { return r.HeapMiB }},
	{"startup_ms", func(r session.Run) float64 { return r.StartupMs }},
	{"artifact_bytes", func(r session.Run) float64 { return float64(r.ArtifactBytes) }},
	{MetricSyscalls, func(r session.Run) float64 { return r.SyscallsPerResponse }},
	{"context_switches_per_response", func(r session.Run) float64 { return r.ContextSwitchesPerResponse }},
	{"sampled_ns_per_response", func(r session.Run) float64 { return sampled(r).NsPerResponse }},
	{"sampled_kernel_ns_per_response", func(r session.Run) float64 { return sampled(r).KernelNs }},
}

// sampled is r's sampled CPU time, zero when it was not sampled.
func sampled(r session.Run) session.Sampled {
	if r.Sample == nil {
		return session.Sampled{}
	}
	return *r.Sample
}

// Runtime is a race's runtime table: for each of RuntimeMetrics, each side's median over its
// valid runs that reported the figure (a figure of 0 is one the target did not report) and the
// delta of the two medians; throughput's delta is the median of the per-pair deltas,
// medianDeltaPct. Every reading of the runs (Run.Readings) follows under its own key, its
// medians over the runs that have it, with its label.
func Runtime(runsA, runsB []session.Run, medianDeltaPct float64) map[string]session.Figure {
	out := map[string]session.Figure{}
	for _, m := range RuntimeMetrics {
		f := figureOf(positive(Field(runsA, m.Get)), positive(Field(runsB, m.Get)))
		if m.Key == MetricRPS && f.A != nil && f.B != nil {
			f.DeltaPct = nil
			if !math.IsNaN(medianDeltaPct) && !math.IsInf(medianDeltaPct, 0) {
				f.DeltaPct = &medianDeltaPct
			}
		}
		out[m.Key] = f
	}
	for key, r := range readings(runsA, runsB) {
		f := figureOf(readingOf(runsA, key), readingOf(runsB, key))
		if f.A == nil && f.B == nil && !applies(runsA, key) && !applies(runsB, key) {
			continue // neither side's runtime gives it: no row to show
		}
		f.Label, f.LowerIsBetter, f.Context = r.Label, r.LowerIsBetter, r.Context
		if f.A == nil {
			f.NotReadA = whyNotRead(runsA, key)
		}
		if f.B == nil {
			f.NotReadB = whyNotRead(runsB, key)
		}
		out[key] = f
	}
	return out
}

// applies reports whether some run of runs could have reading key: it has it, or failed to
// read it, rather than run on a runtime that gives none.
func applies(runs []session.Run, key string) bool {
	for _, r := range runs {
		if v, ok := r.Readings[key]; ok && !v.NotApplicable {
			return true
		}
	}
	return false
}

// whyNotRead is the reason the last of runs that has reading key unread gives ("" when none
// says).
func whyNotRead(runs []session.Run, key string) string {
	why := ""
	for _, r := range runs {
		if v, ok := r.Readings[key]; ok && v.NotRead != "" {
			why = v.NotRead
		}
	}
	return why
}

// figureOf is a runtime row over each side's values: their medians, and the delta of the two.
func figureOf(a, b []float64) session.Figure {
	var f session.Figure
	ma, mb := Median(a), Median(b)
	if !math.IsNaN(ma) {
		f.A = &ma
	}
	if !math.IsNaN(mb) {
		f.B = &mb
	}
	if f.A != nil && f.B != nil {
		if d := DeltaPct(ma, mb); !math.IsNaN(d) && !math.IsInf(d, 0) {
			f.DeltaPct = &d
		}
	}
	return f
}

// readings are the readings the runs carry, by key (the last run's label).
func readings(sides ...[]session.Run) map[string]session.Reading {
	out := map[string]session.Reading{}
	for _, runs := range sides {
		for _, r := range runs {
			for k, v := range r.Readings {
				out[k] = v
			}
		}
	}
	return out
}

// readingOf is the value of reading key in each of runs that has it.
func readingOf(runs []session.Run, key string) []float64 {
	var out []float64
	for _, r := range runs {
		if v, ok := r.Readings[key]; ok && v.NotRead == "" {
			out = append(out, v.Value)
		}
	}
	return out
}
