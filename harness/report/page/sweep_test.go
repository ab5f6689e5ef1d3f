//go:build long

// Long test tier (make test-all, -tags long): a sweep page drawn by headless chromium.

package page

import (
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// A sweep's page draws one curve chart per percentile with a point per target and rate, the SLO
// as a line on the p99 chart, generator-bound points hollow, and each target's rate under the
// SLO ("none" when no rate kept p99 under it).
func TestSweepPageInBrowser(t *testing.T) {
	pt := func(target string, i int, rate, p50, p99, p999 float64, bound bool) session.SweepPoint {
		return session.SweepPoint{Point: i, Target: target, Rate: rate, Run: session.Run{Target: target, Scenario: "ping", RPS: rate,
			P50Ms: p50, P99Ms: p99, P999Ms: p999, Open: &session.OpenLoop{Rate: rate, SentRPS: rate, GeneratorBound: bound}}}
	}
	best := 20000.0
	sw := session.Sweep{Kind: "sweep", Targets: []string{"binding", "uws"}, Scenario: "ping", Rates: []float64{10000, 20000, 40000}, SLOMs: 1,
		Shape: session.Shape{Connections: 100, Pipelining: 1, DurationS: 5, Command: []string{"bindrace", "sweep"}},
		Points: []session.SweepPoint{
			pt("binding", 0, 10000, 0.1, 0.5, 0.9, false), pt("uws", 0, 10000, 0.12, 1.5, 2, false),
			pt("uws", 1, 20000, 0.15, 2.5, 4, false), pt("binding", 1, 20000, 0.11, 0.8, 1.2, false),
			pt("binding", 2, 40000, 0.3, 6, 9, true), pt("uws", 2, 40000, 0.5, 12, 30, false),
		},
		PerTarget: []session.SweepTarget{{Target: "binding", SLORate: &best, Points: 3, GeneratorBound: 1}, {Target: "uws", Points: 3}},
	}
	page := renderFixture(t, t.TempDir(), sw, session.Raw{}, map[string]any{"go": "go1.26.8"})
	if !strings.Contains(string(page), "<title>bindrace sweep: binding, uws (ping)</title>") {
		t.Errorf("title: %s", page[:400])
	}
	dom := browse(t, "sweep", page)
	expectMasthead(t, dom, "bindrace sweep report binding , uws scenario ping")
	for _, q := range []struct {
		name string
		want []string
	}{
		{"sweep-p50", []string{"0.1", "0.11", "0.3", "0.12", "0.15", "0.5"}},
		{"sweep-p99", []string{"0.5", "0.8", "6", "1.5", "2.5", "12"}},
		{"sweep-p99.9", []string{"0.9", "1.2", "9", "2", "4", "30"}},
	} {
		svg := chart(t, dom, q.name)
		if got := points(svg, "circle"); strings.Join(got, " ") != strings.Join(q.want, " ") {
			t.Errorf("%s: points %v, want %v (per target, by rate)", q.name, got, q.want)
		}
		if n := strings.Count(svg, "<path"); n != 2 {
			t.Errorf("%s: %d curves, want 2", q.name, n)
		}
		if n := strings.Count(svg, `data-generator-bound="true"`); n != 1 || !strings.Contains(svg, `fill="#fff"`) {
			t.Errorf("%s: %d generator-bound points marked, want 1, hollow", q.name, n)
		}
	}
	if n := strings.Count(dom, "<tr data-target="); n != 6 || !strings.Contains(dom, "<td>generator-bound</td>") {
		t.Errorf("points table: %d rows (want 6), generator-bound status %v", n, strings.Contains(dom, "<td>generator-bound</td>"))
	}
	if !strings.Contains(chart(t, dom, "sweep-p99"), `data-slo="1"`) || strings.Contains(chart(t, dom, "sweep-p50"), "data-slo") {
		t.Error("the SLO line belongs on the p99 chart only")
	}
	for _, want := range []string{`<li data-target="binding" data-value="20000">binding: <b>20,000 requests/s</b>`, `<li data-target="uws" data-value="none">uws: <b>none</b>`} {
		if !strings.Contains(dom, want) {
			t.Errorf("SLO list lacks %s", want)
		}
	}
}
