package race

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/session"
)

// openTally sums an open loop's windows: what was asked and sent, the worst lag and CPU.
type openTally struct {
	rate, lagP99Ms, cpuPct float64
	sent                   int64
	elapsed                float64
	bound                  bool
}

// addOpen adds one window's open-loop figures to t (nothing for a closed loop).
func (t *tally) addOpen(r *load.Result) {
	o := r.Open
	if o == nil {
		return
	}
	if t.open == nil {
		t.open = &openTally{}
	}
	t.open.rate = o.Rate
	t.open.sent += o.Sent
	t.open.elapsed += r.Elapsed.Seconds()
	t.open.lagP99Ms = max(t.open.lagP99Ms, o.Lag.P99)
	t.open.cpuPct = max(t.open.cpuPct, o.CPUPct)
	t.open.bound = t.open.bound || o.GeneratorBound
}

// openRun is the run's OpenLoop record; nil for a closed loop.
func (t *tally) openRun() *session.OpenLoop {
	o := t.open
	if o == nil {
		return nil
	}
	r := &session.OpenLoop{Rate: o.rate, LagP99Ms: round2(o.lagP99Ms), GeneratorCPUPct: round2(o.cpuPct), GeneratorBound: o.bound}
	if o.elapsed > 0 {
		r.SentRPS = round2(float64(o.sent) / o.elapsed)
	}
	return r
}

// encodeHist is h in HdrHistogram's compressed encoding (base64), for raw.json; "" (and a
// warning) if it cannot be encoded.
func encodeHist(h *hdrhistogram.Histogram, e *engine) string {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		e.prog.Logf("warning: latency histogram not kept: %v", err)
		return ""
	}
	return string(b)
}
