package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
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
	Scenario string // for the JSON object, of a WebSocket load
}

// writeLoadJSON prints the --json object (load.Output).
func writeLoadJSON(w io.Writer, res *load.Result, sh load.Config, sum loadSummary, runErr error) error {
	out, err := load.NewOutput(res, sh, runErr)
	if err != nil {
		return err
	}
	out.Scenario = sum.Scenario
	return json.NewEncoder(w).Encode(out)
}

// describeLoad is how the summary names c's load: the target as shown and, for a WebSocket
// load, its scenario (scen, "" when not known).
func describeLoad(c load.Config, target, scen string) loadSummary {
	if c.Protocol == load.WebSocket {
		return loadSummary{Target: target, Unit: load.UnitMessages, Noun: fmt.Sprintf("messages of %d bytes", c.Size),
			Answers: "messages echoed", Rate: "Messages/sec", Test: scen,
			Pipeline: fmt.Sprintf("%d messages of %d bytes in flight each", c.Pipelining, c.Size), Scenario: scen}
	}
	return loadSummary{Target: target, Unit: "rps", Noun: "requests", Rate: "Requests/sec",
		Pipeline: fmt.Sprintf("pipelining %d", c.Pipelining)}
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
		fmt.Fprintf(w, "  Errors: %d (%s)\n", n, errorKinds(res.Errors))
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

// errorKinds lists errors by kind, "malformed 905, timeout 2".
func errorKinds(errs map[string]int64) string {
	kinds := slices.Sorted(maps.Keys(errs))
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, errs[k])
	}
	return strings.Join(parts, ", ")
}

// nothingMeasured is what a run that got no valid answer says: every request failed, timed
// out or came back as bytes that are not the protocol's, so no figure measures the target.
func nothingMeasured(res *load.Result, sum loadSummary) error {
	answers := sum.Answers
	if answers == "" {
		answers = "responses"
	}
	why := "no answer and no error: the target never replied"
	if n := res.ErrorCount(); n > 0 {
		why = fmt.Sprintf("%d errors: %s", n, errorKinds(res.Errors))
	}
	return fmt.Errorf("no valid %s in the window (%s): nothing was measured", answers, why)
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
