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
