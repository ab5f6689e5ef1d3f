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

// TestBrowserDecidedFigure: a race decided per server CPU-second shows that figure in its
// headline card (delta, label, interval), raw throughput only beside it, the closed loop's tails
// labelled as saturation context, and the p99 as a context row of the checks, all as the gate
// stored them in summary.json. The fixture's per-CPU-second deltas are 30 points above its raw
// ones, so a card showing raw throughput fails here.
func TestBrowserDecidedFigure(t *testing.T) {
	chromium(t)
	fix, raw, man := raceFixture("binding")
	for i := range fix.Pairs {
		fix.Pairs[i].A.RPSPerCPUSecond *= 1.3
	}
	sum := stats.Summarize(fix.Pairs, fix.Thresholds, stats.FixedDesign(len(fix.Pairs), 0.025))
	sum.A, sum.B, sum.Scenario, sum.Shape, sum.BVersion = fix.A, fix.B, fix.Scenario, fix.Shape, "20.30.0"
	sum.DecideOn, sum.FamilyConfidence, sum.FallibleChecks = stats.MetricRPSPerCPUSec, 0.95, 2
	sum.Counters, sum.CountersMode = fix.Counters, fix.CountersMode // a race always writes counters (kinds.describe)
	gate.Apply(&sum, nil)
	page := renderFixture(t, t.TempDir(), sum, raw, man)
	dom := html.UnescapeString(browse(t, "report-decided", page))

	perCPU, rawDelta := sum.Paired[stats.MetricRPSPerCPUSec], sum.MedianDeltaPct
	if got := textOf(t, dom, "headline-delta"); got != pctDelta(perCPU.MedianPct) || got == pctDelta(rawDelta) {
		t.Errorf("headline delta shows %q: want the decided figure %q, not raw throughput %q", got, pctDelta(perCPU.MedianPct), pctDelta(rawDelta))
	}
	if !strings.Contains(dom, `data-metric="rps_per_cpu_second"`) || !strings.HasPrefix(textOf(t, dom, "headline-text"), "median throughput per server CPU-second of ") {
		t.Errorf("headline card does not name the decided figure: %q", textOf(t, dom, "headline-text"))
	}
	if got := textOf(t, dom, "headline-raw"); got != "raw throughput "+pctDelta(rawDelta) {
		t.Errorf("raw throughput beside it: %q", got)
	}
	if perCPU.CIPct == nil || perCPU.CIPct[0] <= 0 {
		t.Fatalf("the fixture's per-CPU-second interval %v must be bounded and positive", perCPU.CIPct)
	}
	ci := fmt.Sprintf("+%.1f \u2026 +%.1f%%", perCPU.CIPct[0], perCPU.CIPct[1])
	if !strings.Contains(dom, ci) {
		t.Errorf("the card's interval is not the decided figure's %s", ci)
	}
	if !strings.Contains(dom, "p99 latency · binding (saturation, context)") || !strings.Contains(dom, `data-metric="p99_ms" data-verdict="context"`) {
		t.Error("the closed loop's p99 is not shown as saturation context")
	}
	if h := sum.Headline; !strings.Contains(dom, h) || !strings.HasPrefix(h, "PASS: binding") || !strings.Contains(h, "per server CPU-second") || !strings.Contains(h, "(saturation, context)") {
		t.Errorf("verdict headline %q (on the page: %v)", h, strings.Contains(dom, h))
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
