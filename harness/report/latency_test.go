package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// An open-loop race's report says how its rate was chosen and sets each side's merged
// percentiles (all requests) beside the median of its runs, each labelled.
func TestLatencySection(t *testing.T) {
	dir, s := writeRace(t, "binding")
	s.Rate = &session.Rate{RPS: 5000, Fraction: 0.5, MaxA: 12000, MaxB: 10000}
	s.MergedA = &session.Merged{Runs: 10, Requests: 123456, P50Ms: 0.11, P90Ms: 0.3, P99Ms: 7.5, P999Ms: 42, MaxMs: 50}
	s.MergedB = &session.Merged{Runs: 10, Requests: 120000, P50Ms: 0.12, P90Ms: 0.4, P99Ms: 8, P999Ms: 12, MaxMs: 20}
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	md := renderT(t, dir, "md")
	expectAll(t, "markdown", md,
		"at 5,000 requests/s, an open loop",
		"both sides were offered 5,000 requests/s in all",
		"50.00% of the LOWER of the two closed-loop maxima measured in this session at the same pipelining (binding 12,000, uws 10,000)",
		"| percentile | binding, median of runs | binding, all requests, merged | uws, median of runs | uws, all requests, merged |",
		"| p99.9 | 4.90 ms | 42.00 ms | 5.39 ms | 12.00 ms |",
		"| max | – | 50.00 ms | – | 20.00 ms |",
		"(123,456 and 120,000 requests)",
	)
	// A closed-loop race without histograms has no such section.
	dir2, _ := writeRace(t, "binding")
	if strings.Contains(renderT(t, dir2, "md"), "## Latency") {
		t.Error("a race without rate or histograms has a latency section")
	}
}
