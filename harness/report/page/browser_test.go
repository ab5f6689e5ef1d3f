//go:build long

// Long test tier (make test-all, -tags long): the report pages drawn by headless chromium.

package page

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

func TestBrowserRace(t *testing.T) {
	chromium(t)
	sum, raw, man := raceFixture("binding")
	page := renderFixture(t, t.TempDir(), sum, raw, man)
	dom := browse(t, "report-race", page)

	if got, want := textOf(t, dom, "headline-delta"), pctDelta(sum.MedianDeltaPct); got != want {
		t.Errorf("headline delta shows %q, summary.json says %q", got, want)
	}
	if !strings.Contains(dom, `data-verdict="PASS"`) || textOf(t, dom, "verdict-text") != "Regression threshold passed" {
		t.Errorf("verdict banner wrong: %q", textOf(t, dom, "verdict-text"))
	}
	if textOf(t, dom, "verdict-badge") != "PASS" {
		t.Errorf("verdict badge = %q", textOf(t, dom, "verdict-badge"))
	}
	if !strings.Contains(dom, "All 10 pairs, no selection.") {
		t.Error(`missing "All 10 pairs, no selection."`)
	}

	checkPairCards(t, dom, sum)

	// Pairs chart: one circle per side per pair, values equal to summary.json, plus the threshold line.
	pc := chart(t, dom, "pairs")
	vals := points(pc, "circle")
	if len(vals) != 2*len(sum.Pairs) {
		t.Errorf("pairs chart has %d data points, want %d", len(vals), 2*len(sum.Pairs))
	}
	for i, p := range sum.Pairs {
		for _, side := range []struct {
			s string
			v float64
		}{{"a", p.A.RPS}, {"b", p.B.RPS}} {
			pat := fmt.Sprintf(`data-side="%s" data-pair="%d" data-value="%s"`, side.s, i+1, jsNum(side.v))
			if !strings.Contains(pc, pat) {
				t.Errorf("pairs chart lacks %s", pat)
			}
		}
	}
	if !strings.Contains(pc, `class="threshold" data-threshold="-2"`) {
		t.Error("pairs chart has no threshold line")
	}

	// Latency chart: p50/p95/p99/p99.9 per side.
	lc := chart(t, dom, "latency")
	if n := len(points(lc, "circle")); n != 8 {
		t.Errorf("latency chart has %d data points, want 8", n)
	}
	if !strings.Contains(lc, fmt.Sprintf(`data-side="a" data-pct="p99" data-value="%s"`, jsNum(medianOf(fixP99A)))) {
		t.Error("latency chart's p99 of A is not the median over pairs")
	}

	// Tables and the rest.
	if n := strings.Count(dom, `data-testid="metric"`); n != 13 {
		t.Errorf("%d metric rows, want 13", n)
	}
	if !strings.Contains(dom, `data-counter="cycles" data-unsupported="true"`) {
		t.Error("unsupported counter not shown as such")
	}
	wantCmd := "bin/bindrace race --a binding --b uws --profile release-linux --out 'results/2026-11-03 release'"
	if !strings.Contains(html.UnescapeString(dom), `<code>`+wantCmd+`</code>`) {
		t.Errorf("command not shown shell-quoted: want %q", wantCmd)
	}
	if !strings.Contains(dom, `data-key="cpu_model"`) || !strings.Contains(dom, "AMD EPYC 7B13") {
		t.Error("environment not shown")
	}
	if !strings.Contains(dom, "@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0") {
		t.Error("pinned upstream not named")
	}
}

func TestBrowserMatrix(t *testing.T) {
	chromium(t)
	m, raw, man := matrixFixture()
	page := renderFixture(t, t.TempDir(), m, raw, man)
	dom := browse(t, "report-matrix", page)
	expectMasthead(t, dom, "bindrace matrix report binding , binding-static , uws , fasthttp , nethttp scenario ping · profile quick · 5 rounds, seed 42 · 2026-11-03 15:00 UTC")

	bars := points(chart(t, dom, "targets"), "rect")
	if len(bars) != len(m.Targets) {
		t.Errorf("targets chart has %d bars, want %d", len(bars), len(m.Targets))
	}
	for i, ts := range m.PerTarget {
		if i < len(bars) && bars[i] != jsNum(ts.MeanRPS) {
			t.Errorf("bar %d = %s, want %s", i, bars[i], jsNum(ts.MeanRPS))
		}
	}
	if n := len(points(chart(t, dom, "position-bias"), "circle")); n != len(m.Runs) {
		t.Errorf("position-bias chart has %d points, want %d", n, len(m.Runs))
	}
	if got := textOf(t, dom, "slot-correlation"); got != "r = +0.09" {
		t.Errorf("correlation shows %q", got)
	}
	if n := strings.Count(dom, `data-testid="target-row"`); n != len(m.Targets) {
		t.Errorf("%d target rows, want %d", n, len(m.Targets))
	}
	if !strings.Contains(dom, "All 25 runs, no selection.") {
		t.Error("rounds table missing")
	}
}

func TestBrowserHostileIsInert(t *testing.T) {
	chromium(t)
	sum, raw, man := raceFixture(hostile)
	man["note"] = hostile
	page := renderFixture(t, t.TempDir(), sum, raw, man)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(runChromium(t, dir, "--dump-dom", "file://"+file))
	if !strings.Contains(dom, `data-rendered="true"`) {
		t.Fatalf("hostile page did not render:\n%s", tail(dom, 2000))
	}
	if n := strings.Count(dom, "<script"); n != 2 {
		t.Errorf("DOM has %d script elements, want 2", n)
	}
	if !strings.Contains(dom, "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("hostile name is not shown as text")
	}
}

// TestBrowserSequential: a sequential race's page says how it was decided — the stop line in
// gate.StopText's words, one bar per bounded look with its interval and decision, one table row
// per look reached — all equal to summary.json.
func TestBrowserSequential(t *testing.T) {
	chromium(t)
	sum, raw, man := raceFixture("binding")
	d, err := stats.SequentialDesign(6, 30, 0.025)
	if err != nil {
		t.Fatal(err)
	}
	resum := stats.Summarize(sum.Pairs[:8], sum.Thresholds, d)
	resum.Shape, resum.BVersion = sum.Shape, "20.30.0"
	resum.Stop = &session.Stop{Reason: session.StopDecided, Pairs: 8, ElapsedS: 112.4}
	resum.SetAside = &session.SetAside{LimitPct: 2, Rounds: 3, Measured: 35, ByA: 2, ByB: 1}
	gate.Apply(&resum, nil)
	dom := browse(t, "report-sequential", renderFixture(t, t.TempDir(), resum, raw, man))

	if got, want := textOf(t, dom, "stop"), gate.StopText(&resum); got != want || want != "decided after 8 of at most 30 pairs in 1m52.4s" {
		t.Errorf("stop line %q, gate says %q", got, want)
	}
	c := resum.Checks[0]
	if c.Metric != stats.MetricRPS || c.DecidedAt != 8 {
		t.Fatalf("fixture: %+v", c)
	}
	lc := chart(t, dom, "looks")
	bars := points(lc, "rect")
	want := fmt.Sprintf("%s,%s", jsNum(c.Looks[1].Interval[0]), jsNum(c.Looks[1].Interval[1]))
	if len(bars) != 1 || bars[0] != want || !strings.Contains(lc, `data-pairs="8"`) || !strings.Contains(lc, `data-decision="PASS"`) {
		t.Errorf("looks chart bars %v, want one at 8 pairs [%s] PASS", bars, want)
	}
	if !strings.Contains(lc, fmt.Sprintf(`class="threshold" data-threshold="%s"`, jsNum(c.Limit))) {
		t.Error("looks chart has no limit line")
	}
	if !strings.Contains(dom, `data-testid="set-aside" data-rounds="3"`) || !strings.Contains(textOf(t, dom, "set-aside"), "3 of 35 rounds") {
		t.Errorf("set-aside line missing or wrong")
	}
	if n := strings.Count(dom, `data-testid="look-row"`); n != 2 {
		t.Errorf("%d look rows, want 2 (6 and 8 pairs)", n)
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
