package stats

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
)

// MergedLatency is the latency of every request of the valid runs that kept a histogram
// (Run.Hist, µs), their histograms merged: the distribution of all requests of a side, for
// reading beside the median of the runs' percentiles (which the gate uses, pair by pair). Nil
// when no run kept one; a histogram that does not decode is an error naming the run.
func MergedLatency(runs []session.Run) (*session.Merged, error) {
	var all *hdrhistogram.Histogram
	n := 0
	for i, r := range runs {
		if !RunValid(r) || r.Hist == "" {
			continue
		}
		h, err := hdrhistogram.Decode([]byte(r.Hist))
		if err != nil {
			return nil, fmt.Errorf("run %d of %s: latency histogram: %w", i, r.Target, err)
		}
		if all == nil {
			all = hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		}
		all.Merge(h)
		n++
	}
	if all == nil {
		return nil, nil
	}
	ms := func(q float64) float64 { return round.To(float64(all.ValueAtQuantile(q))/1000, 3) }
	return &session.Merged{Runs: n, Requests: all.TotalCount(), P50Ms: ms(50), P90Ms: ms(90), P99Ms: ms(99), P999Ms: ms(99.9),
		MaxMs: round.To(float64(all.Max())/1000, 3)}, nil
}

// mergeSides fills s.MergedA and s.MergedB from the pairs' histograms and leaves the histograms
// out of the summary's pairs: they stay in raw.json, whose runs the summary's repeat.
func mergeSides(s *session.Figures, runsA, runsB []session.Run) {
	var err error
	if s.MergedA, err = MergedLatency(runsA); err != nil {
		s.PairWarnings = AppendWarning(s.PairWarnings, err.Error())
	}
	if s.MergedB, err = MergedLatency(runsB); err != nil {
		s.PairWarnings = AppendWarning(s.PairWarnings, err.Error())
	}
	for i := range s.Pairs {
		s.Pairs[i].A.Hist, s.Pairs[i].B.Hist = "", ""
	}
}

// GeneratorBound counts the runs whose open-loop generator fell behind its schedule.
func GeneratorBound(runs []session.Run) int {
	n := 0
	for _, r := range runs {
		if r.Open != nil && r.Open.GeneratorBound {
			n++
		}
	}
	return n
}

// generatorBoundWarning names the runs whose load generator did not keep to the schedule.
func generatorBoundWarning(runs []session.Run) string {
	n := GeneratorBound(runs)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d runs were generator-bound (the load generator's send lag p99 above its tolerance): their latency measures the generator as much as the server, and no verdict rests on them",
		n, len(runs))
}
