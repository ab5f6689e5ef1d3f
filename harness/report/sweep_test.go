package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func TestSweepMarkdownAndCSV(t *testing.T) {
	dir := t.TempDir()
	best := 20000.0
	pt := func(target string, frac, rate, p99 float64, bound bool) session.SweepPoint {
		return session.SweepPoint{Target: target, Fraction: frac, Rate: rate, Run: session.Run{Target: target, Scenario: "ping", RPS: rate, P50Ms: 0.1, P99Ms: p99, P999Ms: 2 * p99,
			Open: &session.OpenLoop{Rate: rate, SentRPS: rate - 1, LagP99Ms: 0.05, GeneratorBound: bound}}}
	}
	writeJSON(t, filepath.Join(dir, "summary.json"), session.Sweep{Kind: "sweep", Targets: []string{"binding", "uws"}, Scenario: "ping",
		Fractions: []float64{0.25, 0.5}, ClosedLoopMax: map[string]float64{"binding": 80000, "uws": 40000}, SLOMs: 1,
		Points:    []session.SweepPoint{pt("binding", 0.25, 20000, 0.8, false), pt("uws", 0.25, 10000, 1.5, false), pt("uws", 0.5, 20000, 3, false), pt("binding", 0.5, 40000, 0.9, true)},
		PerTarget: []session.SweepTarget{{Target: "binding", SLORate: &best, Points: 2, GeneratorBound: 1}, {Target: "uws", Points: 2}}})
	md := renderT(t, dir, "md")
	expectAll(t, "markdown", md,
		"# Sweep — ping: binding, uws",
		"## Highest rate with p99 under 1 ms",
		"| binding | 20,000 requests/s | 2 (1 generator-bound) |",
		"| uws | none | 2 (0 generator-bound) |",
		"| binding | 40,000 | 50.00% | 39,999 | 0.10 ms | 0.90 ms | 1.80 ms | 0.05 ms | GENERATOR-BOUND |",
		"- uws: 40,000 requests/s",
	)
	csv := renderT(t, dir, "csv")
	if lines := strings.Split(strings.TrimSpace(csv), "\n"); len(lines) != 5 || !strings.HasPrefix(lines[4], "1,40000,,0,binding,ping,40000,") {
		t.Errorf("csv:\n%s", csv)
	}
	var buf bytes.Buffer
	if err := Render(dir, "benchfmt", &buf); err == nil || !strings.Contains(err.Error(), "a sweep fixes its rates") {
		t.Errorf("benchfmt of a sweep: %v", err)
	}
}
