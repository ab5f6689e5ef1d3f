package load

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Check says which field of o is impossible for a load that ran: a count below zero, a figure
// that is not a finite number at or above zero, a shape without connections, a window of no
// time that measured something, a throughput or percentile that disagrees with the counts, a
// histogram not of the generator's shape or of another number of responses, and in an open
// loop more responses than the requests sent and those in flight as the window opened.
func (o *Output) Check() error {
	checks := []func() error{o.checkCounts, o.checkShape, o.checkWindow, o.checkLatency, o.checkHist, o.checkClient}
	if o.OpenOutput != nil {
		checks = append(checks, o.checkOpen)
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

func (o *Output) checkCounts() error {
	for _, c := range []struct {
		name string
		v    int64
	}{{"responses", o.Responses}, {"errors", o.Errors}, {"bytes_read", o.BytesRead}, {"reconnects", o.Reconnects}, {"count", o.Count}} {
		if c.v < 0 {
			return fmt.Errorf("%s %d: a count below zero", c.name, c.v)
		}
	}
	var sum int64
	for kind, n := range o.ErrorsByKind {
		if kind == "" || n < 0 || sum > math.MaxInt64-n {
			return fmt.Errorf("errors_by_kind[%q] %d: want a named kind and a count of 0 or more", kind, n)
		}
		sum += n
	}
	if sum != o.Errors {
		return fmt.Errorf("errors %d: errors_by_kind adds up to %d", o.Errors, sum)
	}
	return nil
}

func (o *Output) checkShape() error {
	switch {
	case o.Connections < 1:
		return fmt.Errorf("connections %d: want 1 or more", o.Connections)
	case o.Pipelining < 1:
		return fmt.Errorf("pipelining %d: want 1 or more", o.Pipelining)
	case o.Workers < 0:
		return fmt.Errorf("workers %d: want 0 or more", o.Workers)
	case o.Size < 0:
		return fmt.Errorf("size %d: want 0 or more", o.Size)
	case o.Unit != "" && o.Unit != UnitMessages:
		return fmt.Errorf("unit %q: want none or %q", o.Unit, UnitMessages)
	}
	return nil
}

// checkWindow: a window of some time, and a throughput that is its responses over it. A window
// that never opened (duration 0) is allowed only when the output says why and measured nothing.
func (o *Output) checkWindow() error {
	if err := nonNegative("duration_s", o.DurationS); err != nil {
		return err
	}
	if err := nonNegative("rps", o.RPS); err != nil {
		return err
	}
	if o.DurationS == 0 {
		if o.Incomplete == "" || o.Responses != 0 || o.RPS != 0 {
			return fmt.Errorf("duration_s 0: a window of no time, with %d responses at %v/s and no reason given", o.Responses, o.RPS)
		}
		return nil
	}
	if !agrees(o.RPS, float64(o.Responses)/o.DurationS) {
		return fmt.Errorf("rps %v: %d responses in %v s are %.1f/s", o.RPS, o.Responses, o.DurationS, float64(o.Responses)/o.DurationS)
	}
	return nil
}

// agrees reports a rate rounded for print (to 0.1/s) that is the one computed, within 1%.
func agrees(printed, computed float64) bool {
	return math.Abs(printed-computed) <= 0.01*computed+0.1
}

func (o *Output) checkLatency() error {
	l := o.Latency
	if err := ordered("p50_ms", l.P50, "p95_ms", l.P95, "p99_ms", l.P99, "p999_ms", l.P999, "max_ms", l.Max); err != nil {
		return err
	}
	if err := nonNegative("mean_ms", l.Mean); err != nil {
		return err
	}
	if l.Mean > l.Max+0.001 { // the mean is rounded to 0.001
		return fmt.Errorf("mean_ms %v: above max_ms %v", l.Mean, l.Max)
	}
	return nil
}

// ordered checks name/value pairs are finite, at or above zero and in ascending order.
func ordered(kv ...any) error {
	prev, prevName := 0.0, ""
	for i := 0; i+1 < len(kv); i += 2 {
		name, v := kv[i].(string), kv[i+1].(float64)
		if err := nonNegative(name, v); err != nil {
			return err
		}
		if v < prev {
			return fmt.Errorf("%s %v: below %s %v", name, v, prevName, prev)
		}
		prev, prevName = v, name
	}
	return nil
}

// nonNegative refuses a figure that is not a finite number at or above zero.
func nonNegative(name string, v float64) error {
	if !(v >= 0) || math.IsInf(v, 1) {
		return fmt.Errorf("%s %v: want a finite number, 0 or more", name, v)
	}
	return nil
}

func (o *Output) checkHist() error {
	if o.HistUnit != "us" {
		return fmt.Errorf("hist_unit %q: want \"us\"", o.HistUnit)
	}
	h, err := checkedHist(o.Hist, "hist")
	if err != nil {
		return err
	}
	if n := h.TotalCount(); n != o.Responses {
		return fmt.Errorf("hist: %d latencies for %d responses", n, o.Responses)
	}
	return nil
}

func (o *Output) checkClient() error {
	c := o.Client
	if c == nil {
		return nil
	}
	if c.Reads < 0 || c.Wakeups < 0 {
		return fmt.Errorf("client: reads %d, wakeups %d: a count below zero", c.Reads, c.Wakeups)
	}
	if err := nonNegative("client.responses_per_read", c.ResponsesPerRead); err != nil {
		return err
	}
	return nonNegative("client.batches_in_flight", c.BatchesInFlight)
}

// checkOpen: an open loop's rates and send lags are sane, it answered no more requests than it
// sent in the window plus those in flight as the window opened (responses count by arrival,
// sent requests by departure), and its lag histogram holds at most one lag per request sent.
func (o *Output) checkOpen() error {
	op := o.OpenOutput
	switch {
	case !(op.Rate > 0) || math.IsInf(op.Rate, 1):
		return fmt.Errorf("rate %v: an open loop's rate is a finite number above 0", op.Rate)
	case op.Arrival != "uniform" && op.Arrival != "poisson":
		return fmt.Errorf("arrival %q: want uniform or poisson", op.Arrival)
	case op.Sent < 0:
		return fmt.Errorf("sent %d: a count below zero", op.Sent)
	case float64(o.Responses) > float64(op.Sent)+float64(o.Connections)*float64(o.Pipelining):
		return fmt.Errorf("responses %d: more than the %d requests sent and %d in flight", o.Responses, op.Sent, o.Connections*o.Pipelining)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"sent_rps", op.SentRPS}, {"lag_tolerance_ms", op.LagTolerance}, {"generator_cpu_pct", op.CPUPct}} {
		if err := nonNegative(c.name, c.v); err != nil {
			return err
		}
	}
	if o.DurationS > 0 && !agrees(op.SentRPS, float64(op.Sent)/o.DurationS) {
		return fmt.Errorf("sent_rps %v: %d requests sent in %v s", op.SentRPS, op.Sent, o.DurationS)
	}
	if err := ordered("lag_p50_ms", op.LagP50, "lag_p99_ms", op.LagP99, "lag_max_ms", op.LagMax); err != nil {
		return err
	}
	h, err := checkedHist(op.LagHist, "lag_hist")
	if err != nil {
		return err
	}
	if n := h.TotalCount(); n > op.Sent {
		return fmt.Errorf("lag_hist: %d send lags for %d requests sent", n, op.Sent)
	}
	return nil
}

// checkedHist decodes one of an Output's histograms and checks it is of the generator's shape
// (NewHistogram: 1 µs to 60 s at 3 digits). Its counts cannot be below zero: the encoding
// reads a negative count as a run of empty buckets.
func checkedHist(enc, field string) (*hdrhistogram.Histogram, error) {
	if enc == "" {
		return nil, fmt.Errorf("%s: missing", field)
	}
	h, err := decodeHist(enc, field)
	if err != nil {
		return nil, err
	}
	if got := shapeOf(h); got != generatorShape {
		return nil, fmt.Errorf("%s: %d to %d µs at %d digits, not the generator's histogram", field, got[0], got[1], got[2])
	}
	return h, nil
}

// shapeOf is a histogram's lowest and highest trackable values and significant figures.
func shapeOf(h *hdrhistogram.Histogram) [3]int64 {
	return [3]int64{h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()}
}

var generatorShape = shapeOf(NewHistogram())
