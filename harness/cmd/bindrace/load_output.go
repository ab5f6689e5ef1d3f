package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/bindrace/bindrace/harness/load"
)

// loadSummary is how a printed result names what was sent: the words that differ between
// HTTP requests and WebSocket messages.
type loadSummary struct {
	Target   string // the URL as shown
	Unit     string // of the progress rate: "rps", "messages/s"
	Noun     string // what was sent: "requests", "messages"
	Answers  string // what came back, in the human summary: "responses" (default), "messages echoed"
	Rate     string // the rate's label: "Requests/sec", "Messages/sec"
	Test     string // the test's name in the human summary ("ws-echo"); "" for plain HTTP
	Pipeline string // how much is in flight per connection, e.g. "pipelining 10"
	// For the JSON object, when not HTTP: the scenario and the message size.
	Scenario string
	Size     int
}

// loadJSON is the `load --json` object: flat, with the figures every reader relies on first
// (rps, responses, p50_ms, p99_ms, errors), then the run's shape, its histogram and, for an
// open loop, the schedule's figures.
type loadJSON struct {
	RPS          float64           `json:"rps"`
	Responses    int64             `json:"responses"`
	load.Latency                   // p50_ms to mean_ms, flat in the object
	Errors       int64             `json:"errors"`
	ErrorsByKind map[string]int64  `json:"errors_by_kind"`
	DurationS    float64           `json:"duration_s"`
	Connections  int               `json:"connections"`
	Pipelining   int               `json:"pipelining"`
	Workers      int               `json:"workers"`
	BytesRead    int64             `json:"bytes_read"`
	Reconnects   int64             `json:"reconnects"`
	Count        int64             `json:"count,omitempty"`
	Incomplete   string            `json:"incomplete,omitempty"` // why the figures do not cover the run asked for
	Unit         string            `json:"unit,omitempty"`       // what rps counts, when not HTTP responses: "messages/s"
	Scenario     string            `json:"scenario,omitempty"`   // set for WebSocket loads
	Size         int               `json:"size,omitempty"`       // message payload bytes, for WebSocket loads
	Client       *load.ClientStats `json:"client,omitempty"`     // responses per read, batches in flight
	Hist         string            `json:"hist"`                 // the latency histogram: HdrHistogram's compressed encoding (base64), values in µs
	HistUnit     string            `json:"hist_unit"`            // "us"
	*loadOpenJSON
}

// loadOpenJSON is the open loop's part of the `load --json` object (absent in a closed loop).
type loadOpenJSON struct {
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
}

func writeLoadJSON(w io.Writer, res *load.Result, sh load.Config, sum loadSummary, runErr error) error {
	j := loadJSON{
		RPS: round(res.RPS, 1), Responses: res.Responses,
		Latency: res.Latency,
		Errors:  res.ErrorCount(), ErrorsByKind: res.Errors,
		DurationS:   round(res.Elapsed.Seconds(), 6),
		Connections: sh.Connections, Pipelining: sh.Pipelining, Workers: sh.Workers,
		BytesRead: res.BytesRead, Reconnects: res.Reconnects, Count: sh.Count,
		Unit: res.Unit, Scenario: sum.Scenario, Size: sum.Size, Client: res.Client,
	}
	j.Mean = round(j.Mean, 3)
	if runErr != nil {
		j.Incomplete = runErr.Error()
	}
	hist, err := res.EncodeHist()
	if err != nil {
		return err
	}
	j.Hist, j.HistUnit = hist, "us"
	if o := res.Open; o != nil {
		j.loadOpenJSON = &loadOpenJSON{Rate: o.Rate, Arrival: o.Arrival, Sent: o.Sent, SentRPS: round(o.SentRate, 1),
			LagP50: o.Lag.P50, LagP99: o.Lag.P99, LagMax: o.Lag.Max, LagTolerance: float64(o.LagTolerance.Microseconds()) / 1000,
			CPUPct: round(o.CPUPct, 1), GeneratorBound: o.GeneratorBound}
	}
	enc := json.NewEncoder(w)
	return enc.Encode(j)
}

// writeLoadHuman prints a wrk-like summary.
func writeLoadHuman(w io.Writer, res *load.Result, sh load.Config, sum loadSummary, runErr error) {
	test := "test"
	if sum.Test != "" {
		test = sum.Test + " test"
	}
	if sh.Count > 0 {
		fmt.Fprintf(w, "Sent %d %s @ %s\n", sh.Count, sum.Noun, sum.Target)
	} else {
		fmt.Fprintf(w, "Running %s %s @ %s (warm-up %s, excluded)\n", sh.Duration, test, sum.Target, sh.Warmup)
	}
	fmt.Fprintf(w, "  %d workers and %d connections, %s\n", sh.Workers, sh.Connections, sum.Pipeline)
	l := res.Latency
	fmt.Fprintf(w, "  Latency %10s %10s %10s %10s %10s %10s\n", "p50", "p95", "p99", "p99.9", "max", "mean")
	fmt.Fprintf(w, "          %10s %10s %10s %10s %10s %10s\n", ms(l.P50), ms(l.P95), ms(l.P99), ms(l.P999), ms(l.Max), ms(l.Mean))
	answers := sum.Answers
	if answers == "" {
		answers = "responses"
	}
	fmt.Fprintf(w, "  %d %s in %.2fs, %s read\n", res.Responses, answers, res.Elapsed.Seconds(), bytesIEC(float64(res.BytesRead)))
	if res.Reconnects > 0 {
		fmt.Fprintf(w, "  %d reconnects\n", res.Reconnects)
	}
	if n := res.ErrorCount(); n > 0 {
		kinds := make([]string, 0, len(res.Errors))
		for k := range res.Errors {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		parts := make([]string, len(kinds))
		for i, k := range kinds {
			parts[i] = fmt.Sprintf("%s %d", k, res.Errors[k])
		}
		fmt.Fprintf(w, "  Errors: %d (%s)\n", n, strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "%s: %12.2f\n", sum.Rate, res.RPS)
	if s := res.Elapsed.Seconds(); s > 0 {
		fmt.Fprintf(w, "Transfer/sec: %12s\n", bytesIEC(float64(res.BytesRead)/s))
	}
	if o := res.Open; o != nil {
		fmt.Fprintf(w, "Open loop: %s/s asked (%s), %s/s sent; send lag p50 %s, p99 %s, max %s; generator CPU %.0f%%\n",
			load.GroupThousands(int64(o.Rate+0.5)), o.Arrival, load.GroupThousands(int64(o.SentRate+0.5)),
			ms(o.Lag.P50), ms(o.Lag.P99), ms(o.Lag.Max), o.CPUPct)
		if o.GeneratorBound {
			fmt.Fprintf(w, "GENERATOR-BOUND: send lag p99 %s is above the %s tolerance: these figures measured the generator, not the server\n",
				ms(o.Lag.P99), o.LagTolerance)
		}
	}
	if runErr != nil {
		fmt.Fprintf(w, "INCOMPLETE: %v\n", runErr)
	}
}

func ms(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2fs", v/1000)
	case v >= 1:
		return fmt.Sprintf("%.2fms", v)
	default:
		return fmt.Sprintf("%.0fus", v*1000)
	}
}

func bytesIEC(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.2f%s", b, units[i])
}

func round(v float64, digits int) float64 {
	p := 1.0
	for range digits {
		p *= 10
	}
	if v < 0 {
		return -float64(int64(-v*p+0.5)) / p
	}
	return float64(int64(v*p+0.5)) / p
}
