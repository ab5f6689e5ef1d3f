package measure

import (
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
	"github.com/bindrace/bindrace/harness/targets"
)

// recorder makes runs' session records.
type recorder struct {
	plan     Plan
	targets  map[string]*targets.Target
	artefact map[string]int64
	events   Events
	probes   func() []Probe
}

// record makes run's session record: the load's figures over the kept windows, each probe's,
// one record per window (set-aside ones included, marked), whether the client bound it, and
// what the server said of itself afterwards.
func (r *recorder) record(run Run) session.Run {
	spec := run.Spec
	rec := session.Run{Target: spec.Target, Scenario: spec.Scenario.Name, Slot: spec.Slot, ArtifactBytes: r.artefact[spec.Target],
		StartupMs: ms(run.Startup), BusyPct: run.Busy, StealPct: run.Steal}
	kept := run.Kept()
	r.recordLoad(&rec, kept)
	for _, p := range r.probes() {
		p.Record(&rec, &run, kept)
	}
	rec.PerWindow = perWindow(run.Windows)
	allotted := r.allotted(spec)
	if rec.ServerCPUPct > 0 && allotted > 0 {
		rec.SaturationPct = round.To(rec.ServerCPUPct/allotted, 2) // the server's CPU as % of its allotment
	}
	rec.ClientBound = ClientBound(run, allotted) && !databasePaced(rec.DB)
	if run.Finished {
		recordFinal(&rec, run.Final)
	}
	if run.Err != nil {
		rec.Error = run.Err.Error()
	} else if len(kept) == 0 && len(run.Windows) > 0 && run.Windows[len(run.Windows)-1].SetAside != "" {
		// Nothing left to count: the run says why, so the pair it cannot enter is explained.
		rec.Error = fmt.Sprintf("no window kept: all %d set aside (last: %s)", len(run.Windows), run.Windows[len(run.Windows)-1].SetAside)
	}
	return rec
}

// allotted is how many cores spec's server could keep busy: a capped server is saturated at
// its cap.
func (r *recorder) allotted(spec Spec) float64 {
	cores := r.plan.of(spec).AllottedCores()
	if q := r.targets[spec.Target].CPUQuotaPct; q > 0 {
		cores *= float64(q) / 100
	}
	return cores
}

// recordLoad writes what the load generator counted over the kept windows: responses and
// throughput, each window's throughput when there are several, latency (from the merged
// histograms; with wrk, which keeps none, the median window's percentiles), errors by kind,
// the client's view of the batching and, for an open loop, the schedule's figures.
func (r *recorder) recordLoad(rec *session.Run, kept []Window) {
	var hist *hdrhistogram.Histogram
	var lat []load.Latency
	var elapsed time.Duration
	var clientPerRead, inFlight float64
	var rps []float64
	for _, w := range kept {
		res := w.Load
		rec.Responses += res.Responses
		elapsed += res.Elapsed
		rps = append(rps, round.To(res.RPS, 2))
		if res.Hist != nil {
			if hist == nil {
				hist = load.NewHistogram()
			}
			hist.Merge(res.Hist)
		} else {
			lat = append(lat, res.Latency)
		}
		for k, v := range res.Errors {
			if v != 0 {
				if rec.ErrorsByKind == nil {
					rec.ErrorsByKind = map[string]int64{}
				}
				rec.ErrorsByKind[k] += v
				rec.Errors += v
			}
		}
		if c := res.Client; c != nil {
			clientPerRead += c.ResponsesPerRead * float64(res.Responses)
			inFlight += c.BatchesInFlight * float64(res.Responses)
		}
	}
	rec.DurationS = elapsed.Seconds()
	if elapsed > 0 {
		rec.RPS = float64(rec.Responses) / elapsed.Seconds()
	}
	if len(rps) > 1 {
		rec.Windows = rps
	}
	var l load.Latency
	switch {
	case hist != nil:
		l = load.Summarize(hist)
		rec.Hist = r.encodeHist(hist)
	case len(lat) > 0:
		l = medianLatency(lat)
	}
	rec.P50Ms, rec.P95Ms, rec.P99Ms, rec.P999Ms, rec.MaxMs = l.P50, l.P95, l.P99, l.P999, l.Max
	rec.Open = openLoop(kept)
	if rec.Responses > 0 {
		n := float64(rec.Responses)
		rec.ClientRespPerRead, rec.ClientInFlight = round.To(clientPerRead/n, 2), round.To(inFlight/n, 2)
	}
}

// encodeHist is h in HdrHistogram's compressed encoding (base64), for raw.json; "" (and a
// warning) if it cannot be encoded.
func (r *recorder) encodeHist(h *hdrhistogram.Histogram) string {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		r.events.Warnf("latency histogram not kept: %v", err)
		return ""
	}
	return string(b)
}

// medianLatency is the per-percentile median of windows' latencies.
func medianLatency(ls []load.Latency) load.Latency {
	pick := func(f func(load.Latency) float64) float64 {
		xs := make([]float64, len(ls))
		for i, l := range ls {
			xs[i] = f(l)
		}
		return stats.Median(xs)
	}
	return load.Latency{P50: pick(func(l load.Latency) float64 { return l.P50 }), P95: pick(func(l load.Latency) float64 { return l.P95 }),
		P99: pick(func(l load.Latency) float64 { return l.P99 }), P999: pick(func(l load.Latency) float64 { return l.P999 }),
		Max: pick(func(l load.Latency) float64 { return l.Max })}
}

// openLoop is an open loop's record over its windows: the rate asked, what was sent, the worst
// window's send lag and generator CPU, and whether any window was generator-bound; nil for a
// closed loop.
func openLoop(kept []Window) *session.OpenLoop {
	var rec *session.OpenLoop
	var sent int64
	var elapsed float64
	for _, w := range kept {
		o := w.Load.Open
		if o == nil {
			continue
		}
		if rec == nil {
			rec = &session.OpenLoop{}
		}
		rec.Rate = o.Rate
		sent += o.Sent
		elapsed += w.Load.Elapsed.Seconds()
		rec.LagP99Ms = max(rec.LagP99Ms, o.Lag.P99)
		rec.GeneratorCPUPct = max(rec.GeneratorCPUPct, o.CPUPct)
		rec.GeneratorBound = rec.GeneratorBound || o.GeneratorBound
	}
	if rec == nil {
		return nil
	}
	rec.LagP99Ms, rec.GeneratorCPUPct = round.To(rec.LagP99Ms, 2), round.To(rec.GeneratorCPUPct, 2)
	if elapsed > 0 {
		rec.SentRPS = round.To(float64(sent)/elapsed, 2)
	}
	return rec
}

// perWindow is one record per window with a load result: its throughput, the server's CPU and
// the machine's stolen time during it, and why it was set aside, if it was.
func perWindow(windows []Window) []session.Window {
	var out []session.Window
	for _, w := range windows {
		if w.Load == nil {
			continue
		}
		pw := session.Window{RPS: round.To(w.Load.RPS, 2), SetAside: w.SetAside}
		if pct, _, ok := serverCPU([]Window{w}); ok {
			pw.ServerCPUPct = pct
		}
		if w.Machine != nil {
			pw.StealPct = w.Machine.StealPct
		}
		pw.ThreadELUPct = w.Node.threadELU()
		out = append(out, pw)
	}
	return out
}

// recordFinal writes what the server said after its windows: peak RSS (and RSS, when no window
// read it), heap and threads (through the info route, never requested under load).
func recordFinal(rec *session.Run, f Final) {
	if f.UsageErr == nil {
		rec.PeakRSSMiB = mib(f.Usage.PeakRSSBytes)
		if rec.RSSMiB == 0 {
			rec.RSSMiB = mib(f.Usage.RSSBytes)
		}
	}
	if f.InfoErr == nil {
		if f.Info.HeapBytes > 0 {
			rec.HeapMiB = mib(f.Info.HeapBytes)
		}
		rec.Threads = f.Info.Threads
	}
}
