package page

import (
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func scaleFixture() *session.Scale {
	s := &session.Scale{Kind: "scale", Targets: []string{"binding", "fasthttp"}, Threads: []int{1, 2}, Scenario: "ping", Rounds: 1, BaseThreads: 1,
		Shape: session.Shape{Connections: 100, Pipelining: 10, CPUsClient: "0", Command: []string{"bindrace", "scale"}}}
	s.Points = []session.ScalePoint{
		{Target: "binding", Threads: 1, Runs: 1, RPS: 900000, EfficiencyPct: 100, SpeedUp: 1},
		{Target: "fasthttp", Threads: 1, Runs: 1, RPS: 580000, EfficiencyPct: 100, SpeedUp: 1, ClientBound: true},
		{Target: "binding", Threads: 2, Runs: 1, RPS: 1080000, EfficiencyPct: 60, SpeedUp: 1.2, SharedCPUs: true},
		{Target: "fasthttp", Threads: 2, Runs: 1, RPS: 600000, EfficiencyPct: 51.72, SpeedUp: 1.03, SharedCPUs: true},
	}
	return s
}

func TestRenderScaleTitle(t *testing.T) {
	page := string(renderFixture(t, t.TempDir(), scaleFixture(), session.Raw{}, map[string]any{}))
	for _, want := range []string{`<title>bindrace scale: binding, fasthttp (ping)</title>`, `data-kind="scale"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}

func TestBrowserScale(t *testing.T) {
	chromium(t)
	s := scaleFixture()
	dom := browse(t, "report-scale", renderFixture(t, t.TempDir(), s, session.Raw{}, map[string]any{}))
	expectMasthead(t, dom, "bindrace scale report binding , fasthttp scenario ping · threads 1, 2")
	rps := points(chart(t, dom, "scale-rps"), "circle")
	eff := points(chart(t, dom, "scale-efficiency"), "circle")
	if len(rps) != len(s.Points) || len(eff) != len(s.Points) {
		t.Fatalf("charts have %d and %d points, want %d", len(rps), len(eff), len(s.Points))
	}
	// One curve per target, its points by thread count.
	i := 0
	for _, target := range s.Targets {
		for _, p := range s.Points {
			if p.Target != target {
				continue
			}
			if rps[i] != jsNum(p.RPS) || eff[i] != jsNum(p.EfficiencyPct) {
				t.Errorf("%s at %d: rps %s efficiency %s, want %s and %s", target, p.Threads, rps[i], eff[i], jsNum(p.RPS), jsNum(p.EfficiencyPct))
			}
			i++
		}
	}
	if n := strings.Count(dom, `data-testid="point-row"`); n != len(s.Points) {
		t.Errorf("%d point rows, want %d", n, len(s.Points))
	}
	if !strings.Contains(dom, "client-bound") || !strings.Contains(dom, "shares client CPUs") {
		t.Error("the marks are not shown")
	}
}
