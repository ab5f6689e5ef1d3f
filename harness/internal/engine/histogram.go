package engine

import (
	"errors"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Latencies are recorded in microseconds from 1 µs to 60 s at 3 significant digits: every
// recorded value is within 0.1% of the true one, in about 200 KiB per worker.
const (
	histMin = 1
	histMax = 60_000_000
	histSig = 3
)

// NewHistogram is an empty latency histogram (µs).
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histSig) }

// recordLatency books n requests (or messages) that took ns nanoseconds each, clamped to the
// histogram's range.
func recordLatency(h *hdrhistogram.Histogram, ns, n int64) {
	_ = h.RecordValues(min(max(ns/1000, histMin), histMax), n)
}

// Latency summarises a histogram in milliseconds.
type Latency struct {
	P50  float64 `json:"p50_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

// Summarize reads percentiles as HDR reports them: the highest value equivalent to the one
// at the quantile (an upper bound within the histogram's precision), like wrk does.
func Summarize(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	return Latency{
		P50:  ms(h.ValueAtQuantile(50)),
		P95:  ms(h.ValueAtQuantile(95)),
		P99:  ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)),
		Max:  ms(h.Max()),
		Mean: h.Mean() / 1000,
	}
}

// EncodeHistogram renders h in HdrHistogram's compressed encoding (V2, zlib, base64: what
// hdrhistogram-go's Encode writes and its Decode reads, as do HdrHistogram's other ports), so
// runs measured on other hosts can be merged later: decode each and Merge them.
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	if h == nil {
		return "", errors.New("load: no histogram")
	}
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	return string(b), err
}

// DecodeHistogram reads what EncodeHistogram wrote.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	return hdrhistogram.Decode([]byte(s))
}
