package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/session"
)

// Bad rates, fractions and SLOs: exit 2 naming what is wrong, before any server starts and
// without a session directory; never a silent closed loop.
func TestLatencyBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"race", "--a", "fasthttp", "--b", "nethttp", "--rate", "0"}, "--rate must be above 0 requests/s (got 0)"},
		{[]string{"race", "--a", "fasthttp", "--b", "nethttp", "--rate", "-100"}, "--rate must be above 0 requests/s (got -100)"},
		{[]string{"race", "--a", "fasthttp", "--b", "nethttp", "--rate-fraction", "0"}, "--rate-fraction must be in (0, 1] (got 0)"},
		{[]string{"race", "--a", "fasthttp", "--b", "nethttp", "--rate-fraction", "1.2"}, "--rate-fraction must be in (0, 1] (got 1.2)"},
		{[]string{"race", "--a", "fasthttp", "--b", "nethttp", "--rate", "100", "--rate-fraction", "0.5"}, "give one, not both"},
		{[]string{"sweep", "--targets", "fasthttp,nethttp", "--rates", "1000,0"}, "every rate must be above 0 requests/s (got 0)"},
		{[]string{"sweep", "--targets", "fasthttp,nethttp", "--rates", "-5"}, "every rate must be above 0 requests/s (got -5)"},
		{[]string{"sweep", "--targets", "fasthttp,nethttp", "--fractions", "0.5,1.5"}, "every fraction must be in (0, 1] (got 1.5)"},
		{[]string{"sweep", "--targets", "fasthttp,nethttp", "--fractions", "0"}, "every fraction must be in (0, 1] (got 0)"},
		{[]string{"sweep", "--targets", "fasthttp,nethttp", "--slo", "1ms"}, "--slo needs the rates to judge: give --rates or --fractions"},
		{[]string{"sweep", "--targets", "fasthttp,nethttp", "--rates", "1000", "--fractions", "0.5"}, "--rates and --fractions: give one, not both"},
		{[]string{"sweep", "--targets", "fasthttp,nethttp", "--rates", "1000", "--slo", "0s"}, "--slo must be above 0"},
		{[]string{"sweep", "--targets", "fasthttp,nethttp"}, "give --rates"},
		{[]string{"sweep", "--targets", "fasthttp,nethttp", "--rates", "1000", "--lag-tolerance", "0s"}, "--lag-tolerance must be above 0 (got 0s)"},
		{[]string{"race", "--a", "fasthttp", "--b", "nethttp", "--rate", "1000", "--lag-tolerance", "-1ms"}, "--lag-tolerance must be above 0 (got -1ms)"},
		{[]string{"sweep", "--targets", "fasthttp", "--rates", "fast"}, `invalid argument "fast" for "--rates" flag`},
		{[]string{"sweep", "--targets", "fasthttp", "--rates", "1000", "--loadgen", "wrk"}, "--loadgen wrk drives closed loops only"},
		{[]string{"race", "--a", "fasthttp", "--b", "nethttp", "--rate", "1000", "--loadgen", "wrk"}, "--loadgen wrk drives closed loops only"},
	} {
		r := cli(t, 20*time.Second, append(c.args, "--out", dir)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("%v: left a session directory", c.args)
		}
	}
	noLeftovers(t)
}

// A race at a quarter of the lower closed-loop maximum: both maxima measured first and kept in
// raw.json, both sides offered the same rate, a verdict on the paired p50 and p99 (not
// throughput), every run's histogram in raw.json and each side's merged percentiles in
// summary.json. A side that did not sustain the rate (on a loaded machine the maxima and the
// 250 ms runs can see different machines: in CI at half the maximum one side answered under 95%)
// must be said so instead, its latency context: either way no throughput check.
func TestRaceAtRate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	r := cli(t, 90*time.Second, "race", "--a", "fasthttp", "--b", "nethttp", "--pairs", "6", "--connections", "8", "--pipelining", "1",
		"--duration", "250ms", "--windows", "2", "--warmup", "100ms", "--settle", "0", "--cooldown", "0", "--busy-sample", "0",
		"--rate-fraction", "0.25", "--out", dir, "--json")
	var s session.Summary
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || r.code == 2 {
		t.Fatalf("exit %d, %v\nstdout %s\nstderr %s", r.code, err, r.stdout, r.stderr)
	}
	if want := map[string]int{session.Pass: 0, session.Fail: 1, session.Inconclusive: 3}[s.Verdict]; r.code != want {
		t.Errorf("verdict %s, exit %d", s.Verdict, r.code)
	}
	rt := s.Rate
	if rt == nil || rt.Fraction != 0.25 || rt.MaxA <= 0 || rt.MaxB <= 0 || math.Abs(rt.RPS-math.Round(0.25*min(rt.MaxA, rt.MaxB))) > 0.5 {
		t.Fatalf("rate %+v: want a quarter of the lower maximum", rt)
	}
	var metrics []string
	for _, c := range s.Checks {
		metrics = append(metrics, c.Metric)
	}
	switch got := strings.Join(metrics, ","); {
	case !strings.Contains(s.Headline, "(open loop)"):
		t.Errorf("headline %q: want the open loop named", s.Headline)
	case got == "p50_ms,p99_ms,errors":
	case got == gate.MetricSustained+",errors" && s.Verdict == session.Inconclusive && strings.Contains(s.Headline, "(overloaded, context)"):
		t.Logf("a side did not sustain %.0f requests/s here: %s", rt.RPS, s.Checks[0].Reason)
	default:
		t.Errorf("checks %v, headline %q: want p50, p99 and errors (or, overloaded, sustained_rate and errors), no throughput", metrics, s.Headline)
	}
	if s.MergedA == nil || s.MergedB == nil || s.MergedA.Runs != 6 || s.MergedA.P99Ms < s.MergedA.P50Ms {
		t.Errorf("merged %+v %+v", s.MergedA, s.MergedB)
	}
	for i, run := range rawRuns(t, dir, 14) { // the 2 maxima and 12 race runs
		if n, err := histCount(run); err != nil || n != run.Responses {
			t.Errorf("run %d: histogram %v, %d requests against %d responses", i, err, n, run.Responses)
		}
		if i >= 2 && (run.Open == nil || run.Open.Rate != rt.RPS || run.Open.SentRPS <= 0) {
			t.Errorf("run %d: open loop %+v, want the race's rate", i, run.Open)
		}
		if i < 2 && run.Open != nil {
			t.Errorf("run %d (a maximum) is an open loop", i)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "all requests, merged") || !strings.Contains(string(md), "median of runs") {
		t.Error("summary.md does not set the merged percentiles beside the median of runs")
	}
	noLeftovers(t)
}

// A sweep at two rates: each target at each, the order alternating, a line per target with the
// rate under the SLO (the highest one with a generous SLO; "none" with an impossible one, exit
// 0 either way), the table in summary.md and the curves in report.html.
func TestSweep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	// A tolerant lag: on a machine shared with other work the generator can fall behind, and a
	// generator-bound point cannot set the SLO rate (TestSummarizeSweep); here the mechanics.
	r := cli(t, 60*time.Second, append([]string{"sweep", "--targets", "fasthttp,nethttp", "--rates", "2000,4000", "--slo", "1s", "--connections", "8",
		"--lag-tolerance", "1s", "--out", dir}, fast...)...)
	want := "fasthttp: p99 under 1000 ms up to 4,000 requests/s\nnethttp: p99 under 1000 ms up to 4,000 requests/s\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d\nstdout %q, want %q\nstderr %s", r.code, r.stdout, want, r.stderr)
	}
	var sw session.Sweep
	b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err := json.Unmarshal(b, &sw); err != nil || len(sw.Points) != 4 {
		t.Fatalf("summary.json: %v, %+v", err, sw.Points)
	}
	var order []string
	for _, p := range sw.Points {
		order = append(order, p.Target)
		if p.Run.Open == nil || p.Run.Open.Rate != p.Rate || p.Run.P99Ms <= 0 || sw.Shape.Pipelining != 1 {
			t.Errorf("point %+v (pipelining %d)", p, sw.Shape.Pipelining)
		}
	}
	if strings.Join(order, " ") != "fasthttp nethttp nethttp fasthttp" {
		t.Errorf("order %v: want the targets alternating per point", order)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "| fasthttp | 4,000 requests/s |") || !strings.Contains(string(md), "| nethttp | 2,000 | – |") {
		t.Errorf("summary.md:\n%s", md)
	}
	sweepCurves(t, filepath.Join(dir, "report.html"))

	none := cli(t, 60*time.Second, append([]string{"sweep", "--targets", "fasthttp", "--rates", "2000", "--slo", "1ns", "--connections", "8",
		"--out", filepath.Join(t.TempDir(), "s")}, fast...)...)
	if none.code != 0 || none.stdout != "fasthttp: p99 under 0.000001 ms at none of the rates\n" {
		t.Errorf("impossible SLO: exit %d, stdout %q\nstderr %s", none.code, none.stdout, none.stderr)
	}
	noLeftovers(t)
}

// sweepCurves checks report.html holds the sweep, and, where a browser is installed, that it
// draws the p99 curve: a point per target and rate, and the SLO line.
func sweepCurves(t *testing.T, page string) {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(b), `<body data-kind="sweep">`) {
		t.Fatalf("report.html: %v", err)
	}
	const chromium = "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Logf("no %s: the curves are checked by harness/report/page's browser tests only", chromium)
		return
	}
	out, err := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--virtual-time-budget=5000", "--dump-dom", "file://"+page).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	svg := regexp.MustCompile(`(?s)<svg[^>]*data-chart="sweep-p99".*?</svg>`).FindString(string(out))
	if n := strings.Count(svg, "data-rate="); n != 4 || strings.Count(svg, "<path") != 2 || !strings.Contains(svg, `data-slo="1000"`) {
		t.Errorf("p99 curve: %d points (want 4), %d curves (want 2), SLO line %v", n, strings.Count(svg, "<path"), strings.Contains(svg, "data-slo"))
	}
}

// rawRuns reads the runs of dir's raw.json, which must hold n of them.
func rawRuns(t *testing.T, dir string, n int) []session.Run {
	t.Helper()
	var raw session.Raw
	b, _ := os.ReadFile(filepath.Join(dir, "raw.json"))
	if err := json.Unmarshal(b, &raw); err != nil || len(raw.Runs) != n {
		t.Fatalf("raw.json: %v, %d runs, want %d", err, len(raw.Runs), n)
	}
	return raw.Runs
}

// histCount is how many requests a run's latency histogram holds.
func histCount(run session.Run) (int64, error) {
	h, err := hdrhistogram.Decode([]byte(run.Hist))
	if err != nil {
		return 0, err
	}
	return h.TotalCount(), nil
}
