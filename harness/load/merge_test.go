package load

import (
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// histOf is a histogram of n values of us microseconds each.
func histOf(t *testing.T, n, us int64) *hdrhistogram.Histogram {
	t.Helper()
	h := NewHistogram()
	if err := h.RecordValues(us, n); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestMergeClosedLoops(t *testing.T) {
	a := &Result{Responses: 1000, RPS: 1000, Elapsed: time.Second, Hist: histOf(t, 1000, 500),
		Client: &ClientStats{Reads: 100, Wakeups: 50, BatchesInFlight: 2}}
	b := &Result{Responses: 3000, RPS: 3000, Elapsed: time.Second, Hist: histOf(t, 3000, 2000), Errors: map[string]int64{"timeout": 2},
		Client: &ClientStats{Reads: 300, Wakeups: 150, BatchesInFlight: 4}}
	m := Merge([]*Result{a, b})
	if m.Responses != 4000 || m.RPS != 4000 || m.Errors["timeout"] != 2 || m.Elapsed != time.Second || m.Open != nil {
		t.Errorf("merged %d responses, %.0f rps, errors %v, elapsed %s, open %v", m.Responses, m.RPS, m.Errors, m.Elapsed, m.Open)
	}
	// 1000 answers at 0.5 ms and 3000 at 2 ms: the median and p99 come from the merged
	// histogram (2 ms), not from either client's own or an average of them.
	if m.Hist.TotalCount() != 4000 || m.Latency.P50 < 1.99 || m.Latency.P50 > 2.01 || m.Latency.P99 < 1.99 {
		t.Errorf("merged histogram %d values, p50 %.3f ms p99 %.3f ms", m.Hist.TotalCount(), m.Latency.P50, m.Latency.P99)
	}
	// 400 reads brought 4000 responses; 50 wake-ups saw 2 batches and 150 saw 4: 3.5 on average.
	if c := m.Client; c == nil || c.Reads != 400 || c.ResponsesPerRead != 10 || c.BatchesInFlight != 3.5 {
		t.Errorf("merged client stats %+v", m.Client)
	}
	if Merge(nil) != nil {
		t.Error("Merge of nothing is not nil")
	}
}

// Generators at a rate each: the rates add, the lag comes from the merged lag histograms, and
// one generator that fell behind makes the whole generator-bound.
func TestMergeOpenLoops(t *testing.T) {
	open := func(rate float64, sent, lagUs int64, cpu float64, bound bool) *Result {
		return &Result{Responses: sent, RPS: float64(sent), Elapsed: time.Second, Hist: histOf(t, sent, 300),
			Open: &OpenLoop{Rate: rate, Arrival: "poisson", Sent: sent, SentRate: float64(sent), LagHist: histOf(t, sent, lagUs),
				CPUPct: cpu, GeneratorBound: bound, LagTolerance: time.Millisecond}}
	}
	m := Merge([]*Result{open(500, 500, 50, 20, false), open(500, 500, 3000, 60, true)})
	o := m.Open
	if o == nil || o.Rate != 1000 || o.Sent != 1000 || o.SentRate != 1000 || o.Arrival != "poisson" || o.LagTolerance != time.Millisecond {
		t.Fatalf("merged open loop %+v", o)
	}
	if o.Lag.P50 > 0.06 || o.Lag.P99 < 2.99 || o.CPUPct != 60 || !o.GeneratorBound || o.LagHist.TotalCount() != 1000 {
		t.Errorf("lag %+v, cpu %.0f%%, bound %v", o.Lag, o.CPUPct, o.GeneratorBound)
	}
}
