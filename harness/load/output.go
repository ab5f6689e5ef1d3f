package load

import (
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/internal/engine"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/internal/strictjson"
)

// Output is a load's result as one JSON object: what `bindrace load --json` prints, flat, the
// headline figures first (rps, responses, p50_ms…, errors), and what a harness reads back from
// the loads it started on other hosts. The latency histogram (and an open loop's send-lag histogram) travel along in
// HdrHistogram's encoding, so the results of several hosts merge (Merge).
type Output struct {
	RPS          float64          `json:"rps"`
	Responses    int64            `json:"responses"`
	Latency                       // p50_ms to mean_ms, flat in the object
	Errors       int64            `json:"errors"`
	ErrorsByKind map[string]int64 `json:"errors_by_kind"`
	DurationS    float64          `json:"duration_s"`
	Connections  int              `json:"connections"`
	Pipelining   int              `json:"pipelining"`
	Workers      int              `json:"workers"`
	BytesRead    int64            `json:"bytes_read"`
	Reconnects   int64            `json:"reconnects"`
	Count        int64            `json:"count,omitempty"`
	Incomplete   string           `json:"incomplete,omitempty"` // why the figures do not cover the run asked for
	Unit         string           `json:"unit,omitempty"`       // what rps counts, when not HTTP responses: "messages/s"
	Scenario     string           `json:"scenario,omitempty"`   // the caller's name for what was sent
	Size         int              `json:"size,omitempty"`       // message payload bytes, for WebSocket loads
	Client       *ClientStats     `json:"client,omitempty"`     // responses per read, batches in flight
	Hist         string           `json:"hist"`                 // the latency histogram: HdrHistogram's compressed encoding (base64), values in µs
	HistUnit     string           `json:"hist_unit"`            // "us"
	*OpenOutput
}

// OpenOutput is the open loop's part of an Output (absent in a closed loop).
type OpenOutput struct {
	Rate           float64 `json:"rate"` // asked, per second in all
	Arrival        string  `json:"arrival"`
	Sent           int64   `json:"sent"`     // in the window
	SentRPS        float64 `json:"sent_rps"` // achieved
	LagP50         float64 `json:"lag_p50_ms"`
	LagP99         float64 `json:"lag_p99_ms"`
	LagMax         float64 `json:"lag_max_ms"`
	LagTolerance   float64 `json:"lag_tolerance_ms"`
	CPUPct         float64 `json:"generator_cpu_pct"`
	GeneratorBound bool    `json:"generator_bound"` // lag p99 above the tolerance: the figures are the generator's
	LagHist        string  `json:"lag_hist"`        // the send lags, encoded as Hist
}

// NewOutput is res's Output, with the shape of cfg that produced it and runErr, the error
// that left it incomplete (or nil).
func NewOutput(res *Result, cfg Config, runErr error) (*Output, error) {
	if n, err := cfg.Normalized(); err == nil {
		cfg = n // the shape that ran: a pipelining left 0 ran as 1
	}
	o := &Output{
		RPS: round.To(res.RPS, 1), Responses: res.Responses, Latency: res.Latency,
		Errors: res.ErrorCount(), ErrorsByKind: res.Errors, DurationS: round.To(res.Elapsed.Seconds(), 6),
		Connections: cfg.Connections, Pipelining: cfg.Pipelining, Workers: cfg.Workers,
		BytesRead: res.BytesRead, Reconnects: res.Reconnects, Count: cfg.Count, Unit: res.Unit, Client: res.Client,
		HistUnit: "us",
	}
	o.Mean = round.To(o.Mean, 3)
	if cfg.Protocol == WebSocket {
		o.Size = cfg.Size
	}
	if runErr != nil {
		o.Incomplete = runErr.Error()
	}
	var err error
	if o.Hist, err = engine.EncodeHistogram(res.Hist); err != nil {
		return nil, err
	}
	if op := res.Open; op != nil {
		o.OpenOutput = &OpenOutput{Rate: op.Rate, Arrival: op.Arrival, Sent: op.Sent, SentRPS: round.To(op.SentRate, 1),
			LagP50: op.Lag.P50, LagP99: op.Lag.P99, LagMax: op.Lag.Max, LagTolerance: float64(op.LagTolerance.Microseconds()) / 1000,
			CPUPct: round.To(op.CPUPct, 1), GeneratorBound: op.GeneratorBound}
		if o.LagHist, err = engine.EncodeHistogram(op.LagHist); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// generatorOutput is how a generator's output is read (internal/strictjson): the same bindrace
// wrote it, so a field Output does not know is a far end's lie, not a newer version; a run's
// output is some KiB, and 1 MiB is what the fleet reads of it.
var generatorOutput = strictjson.Rules{KnownFields: true, MaxBytes: 1 << 20}

// DecodeOutput reads an Output's JSON form, what a generator on another host sends back: one
// object of Output's fields and nothing after it, its figures sane (Check). Errors name the
// field.
func DecodeOutput(b []byte) (*Output, error) {
	var o Output
	if err := generatorOutput.Decode(b, &o); err != nil {
		return nil, fmt.Errorf("load output: %w", err)
	}
	if err := o.Check(); err != nil {
		return nil, fmt.Errorf("load output: %w", err)
	}
	return &o, nil
}

// Result turns o back into the Result it was made of, its histograms decoded (and the
// percentiles read from them, so they are the same however o was rounded).
func (o *Output) Result() (*Result, error) {
	res := &Result{Responses: o.Responses, RPS: o.RPS, Elapsed: time.Duration(o.DurationS * float64(time.Second)),
		Unit: o.Unit, Latency: o.Latency, Errors: o.ErrorsByKind, BytesRead: o.BytesRead, Reconnects: o.Reconnects,
		Client: o.Client}
	var err error
	if res.Hist, err = decodeHist(o.Hist, "hist"); err != nil {
		return nil, fmt.Errorf("load output: %w", err)
	}
	if res.Hist != nil {
		res.Latency = Summarize(res.Hist)
	}
	if op := o.OpenOutput; op != nil {
		res.Open = &OpenLoop{Rate: op.Rate, Arrival: op.Arrival, Sent: op.Sent, SentRate: op.SentRPS,
			Lag: Latency{P50: op.LagP50, P99: op.LagP99, Max: op.LagMax}, CPUPct: op.CPUPct, GeneratorBound: op.GeneratorBound,
			LagTolerance: time.Duration(op.LagTolerance * float64(time.Millisecond))}
		if res.Open.LagHist, err = decodeHist(op.LagHist, "lag_hist"); err != nil {
			return nil, fmt.Errorf("load output: %w", err)
		}
		if res.Open.LagHist != nil {
			res.Open.Lag = Summarize(res.Open.LagHist)
		}
	}
	return res, nil
}

// decodeHist decodes one of an Output's histograms, field; nil when there is none.
func decodeHist(enc, what string) (*hdrhistogram.Histogram, error) {
	if enc == "" {
		return nil, nil
	}
	h, err := engine.DecodeHistogram(enc)
	if err != nil {
		return nil, fmt.Errorf("%s: histogram: %w", what, err)
	}
	return h, nil
}
