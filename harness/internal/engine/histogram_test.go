package engine

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestHistogramPercentiles(t *testing.T) {
	// 1..10000 µs once each, split over two worker histograms and merged as Run does.
	a, b := NewHistogram(), NewHistogram()
	for v := int64(1); v <= 10000; v++ {
		h := a
		if v%2 == 0 {
			h = b
		}
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	m := NewHistogram()
	m.Merge(a)
	m.Merge(b)
	l := Summarize(m)
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want)/want > 0.001 { // 3 significant digits
			t.Errorf("%s = %v ms, want %v ms", name, got, want)
		}
	}
	near("p50", l.P50, 5.0)
	near("p95", l.P95, 9.5)
	near("p99", l.P99, 9.9)
	near("p99.9", l.P999, 9.99)
	near("max", l.Max, 10.0)
	near("mean", l.Mean, 5.0005)
}

func TestHistogramBatchRecordAndClamp(t *testing.T) {
	// A run of equal latencies is booked with one call; out-of-range values are clamped.
	h := NewHistogram()
	recordLatency(h, 250_000, 9)        // nine responses at 250 µs
	recordLatency(h, 90_000_000_000, 1) // 90 s: clamped to 60 s
	l := Summarize(h)
	if l.P50 != 0.25 || l.P95 < 59_900 || h.TotalCount() != 10 {
		t.Fatalf("%+v total %d", l, h.TotalCount())
	}
	if (Summarize(NewHistogram()) != Latency{}) {
		t.Fatal("empty histogram should summarise to zeros")
	}
}

// Every Result carries its histogram and encodes it in HdrHistogram's compressed form: decoded,
// it is the same distribution, and the decoded histograms of two runs merge into one, as runs
// measured on other hosts would.
func TestResultHistEncodesAndMerges(t *testing.T) {
	s := newRawServer(t, answer(pingResp))
	merged := NewHistogram()
	for range 2 {
		res, err := Run(context.Background(), countCfg(s.addr(), 500), Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		enc, err := EncodeHistogram(res.Hist)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(enc, "HISTF") { // the V2 compressed cookie, base64
			t.Fatalf("encoding %.20q… is not HdrHistogram's compressed form", enc)
		}
		h, err := DecodeHistogram(enc)
		if err != nil {
			t.Fatal(err)
		}
		if h.TotalCount() != 500 || h.Max() != res.Hist.Max() || h.ValueAtQuantile(99) != res.Hist.ValueAtQuantile(99) {
			t.Fatalf("decoded: %d values, max %d, p99 %d; run: max %d, p99 %d", h.TotalCount(), h.Max(),
				h.ValueAtQuantile(99), res.Hist.Max(), res.Hist.ValueAtQuantile(99))
		}
		merged.Merge(h)
	}
	if merged.TotalCount() != 1000 {
		t.Fatalf("merged %d values", merged.TotalCount())
	}
}
