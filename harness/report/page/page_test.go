package page

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

const (
	maxPageBytes = 300 << 10
	hostile      = "</script><script>alert(1)</script>"
	chromiumPath = "/usr/bin/chromium"
)

// Known numbers of the race fixture: ten pairs, AB/BA alternating.
var (
	fixRPSA = []float64{481759, 478320, 485112, 476904, 483377, 479850, 482640, 474215, 486031, 480502}
	fixRPSB = []float64{429215, 431870, 428460, 433102, 430088, 427954, 432311, 435980, 429702, 431236}
	fixP99A = []float64{4.05, 4.12, 3.98, 4.21, 4.07, 4.10, 4.02, 4.30, 3.95, 4.08}
	fixP99B = []float64{4.47, 4.41, 4.52, 4.38, 4.45, 4.49, 4.40, 4.33, 4.50, 4.44}
)

func round2(v float64) float64 { return math.Round(v*100) / 100 }

func medianOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func raceFixture(a string) (session.Summary, session.Raw, map[string]any) {
	var pairs []session.Pair
	var raw session.Raw
	var deltas []float64
	wins := 0
	for i := range fixRPSA {
		order := "AB"
		slotA, slotB := 0, 1
		if i%2 == 1 {
			order, slotA, slotB = "BA", 1, 0
		}
		ra := fixtureRun(a, slotA, fixRPSA[i], fixP99A[i], 98.3, 59.6, 4.1, 38.5, 9_437_184)
		rb := fixtureRun("uws", slotB, fixRPSB[i], fixP99B[i], 98.2, 60.5, 11.8, 212.4, 1_593_344)
		d := round2((fixRPSA[i] - fixRPSB[i]) / fixRPSB[i] * 100)
		if d > 0 {
			wins++
		}
		deltas = append(deltas, d)
		pairs = append(pairs, session.Pair{Index: i, Order: order, DeltaPct: d, A: ra, B: rb})
		if order == "AB" {
			raw.Runs = append(raw.Runs, ra, rb)
		} else {
			raw.Runs = append(raw.Runs, rb, ra)
		}
	}
	med := round2(medianOf(deltas))
	sort.Float64s(deltas)
	cmd := []string{"bin/bindrace", "race", "--a", a, "--b", "uws", "--profile", "release-linux", "--out", "results/2026-11-03 release"}
	sum := session.Summary{
		Raced: session.Raced{
			Kind: "race", A: a, B: "uws", Scenario: "ping", Connections: 100, Pipelining: 10,
			Shape: session.Shape{Profile: "release-linux", Scenario: "ping", Connections: 100, Pipelining: 10, Workers: 4, Pairs: 10,
				WarmupS: 2, DurationS: 10, CooldownS: 1, CPUsServer: "0", CPUsClient: "1", Command: cmd},
			FamilyConfidence: 0.95, FallibleChecks: 4, DecideOn: "rps",
			Thresholds: session.Thresholds{MinMedianDeltaPct: -2, MaxP99DeltaPct: 10, MaxErrors: 0},
			Warnings:   []string{"load average 1.8 before the run on 2 CPUs: the machine was not idle"},
			Started:    time.Date(2026, 11, 3, 14, 5, 0, 0, time.UTC),
			Finished:   time.Date(2026, 11, 3, 14, 9, 12, 0, time.UTC),
		},
		Figures: session.Figures{
			MedianDeltaPct: med, MinDeltaPct: deltas[0], MaxDeltaPct: deltas[len(deltas)-1], CIPct: &[2]float64{10.9, 12.8},
			CIConfidence: 0.9785, CILevel: 0.975,
			Paired: map[string]session.Paired{
				"rps":    {MedianPct: med, CIPct: &[2]float64{10.9, 12.8}, Confidence: 0.9785, N: 10, MinPct: deltas[0], MaxPct: deltas[len(deltas)-1]},
				"p95_ms": {MedianPct: -8.9, CIPct: &[2]float64{-10.1, -7.7}, Confidence: 0.9785, N: 10},
				"p99_ms": {MedianPct: -8.72, CIPct: &[2]float64{-10.4, -6.9}, Confidence: 0.9785, N: 10},
			},
			Wins: wins, OrderEffectPct: 0.41,
			StatsA: session.SideStats{MedianRPS: medianOf(fixRPSA), CVPct: 0.73, MedianP95Ms: 3.62, MedianP99Ms: medianOf(fixP99A)},
			StatsB: session.SideStats{MedianRPS: medianOf(fixRPSB), CVPct: 0.52, MedianP95Ms: 3.97, MedianP99Ms: medianOf(fixP99B)},
			Pairs:  pairs,
		},
		Counts: session.Counts{
			Counters: map[string]map[string]float64{
				"a": {"instructions": 9177.5, "task-clock": 2041.2, "context-switches": 0.0021, "page-faults": 0.0004},
				"b": {"instructions": 12840.2, "task-clock": 2289.9, "context-switches": 0.0034, "page-faults": 0.0011},
			},
			CountersMode: "perf",
			CountersUnsupported: map[string]string{
				"cycles":        "no PMU on this host: perf_event_open(cycles): no such file or directory",
				"branch-misses": "no PMU on this host: perf_event_open(branch-misses): no such file or directory",
			},
		},
	}
	sum.Decision = fixtureDecision(a, med)
	// The runtime table as stats stores it (the page computes nothing).
	var runsA, runsB []session.Run
	for _, p := range pairs {
		runsA, runsB = append(runsA, p.A), append(runsB, p.B)
	}
	sum.Runtime = stats.Runtime(runsA, runsB, med)
	return sum, raw, fixtureManifest(cmd)
}

// fixtureRun is one run of the race fixture; its percentiles, CPU figures and RSS follow from
// rps and p99.
func fixtureRun(target string, slot int, rps, p99 float64, cpu, rss, heap, startup float64, art int64) session.Run {
	return session.Run{
		Target: target, Scenario: "ping", Slot: slot, RPS: rps, Responses: int64(rps * 10), DurationS: 10,
		P50Ms: round2(p99 * 0.42), P95Ms: round2(p99 * 0.89), P99Ms: p99, P999Ms: round2(p99 * 1.6), MaxMs: p99 * 3,
		ServerCPUPct: cpu, RPSPerCPUSecond: math.Round(rps / (cpu / 100)), RSSMiB: rss, PeakRSSMiB: rss + 3.2,
		HeapMiB: heap, StartupMs: startup, ArtifactBytes: art,
	}
}

// fixtureManifest is the race fixture's manifest.json.
func fixtureManifest(cmd []string) map[string]any {
	return map[string]any{
		"kernel": "Linux 6.1.0-27-amd64 x86_64", "cpu_model": "AMD EPYC 7B13", "cpus": 2, "governor": "performance",
		"loadavg_before": "1.80 0.95 0.40", "go": "go1.26.8", "node": "v20.18.1", "clang": "Debian clang version 19.1.7",
		"upstream": "@trufflesuite/uws-js-unofficial@20.30.0-unofficial.0", "git_commit": "4f1c2a9e0b7d",
		"build":   map[string]any{"release": map[string]any{"flags": "-O3 -flto=thin -fprofile-instr-use", "profile_sha256": "9b0e…c1"}},
		"command": strings.Join(cmd, " "),
	}
}

func matrixFixture() (session.Matrix, session.Raw, map[string]any) {
	targets := []string{"binding", "binding-static", "uws", "fasthttp", "nethttp"}
	base := map[string]float64{"binding": 480000, "binding-static": 612000, "uws": 431000, "fasthttp": 298000, "nethttp": 121000}
	orders := [][]string{
		{"uws", "binding", "nethttp", "fasthttp", "binding-static"},
		{"binding-static", "fasthttp", "uws", "nethttp", "binding"},
		{"nethttp", "binding-static", "binding", "uws", "fasthttp"},
		{"fasthttp", "uws", "binding-static", "binding", "nethttp"},
		{"binding", "nethttp", "fasthttp", "binding-static", "uws"},
	}
	var runs []session.Run
	for r, o := range orders {
		for slot, t := range o {
			f := 1 + 0.012*math.Sin(float64(r*7+slot*3)) - 0.002*float64(slot)
			runs = append(runs, session.Run{Target: t, Scenario: "ping", Slot: slot, RPS: math.Round(base[t] * f), P99Ms: 4 + float64(slot)/10, ServerCPUPct: 97, RSSMiB: 40})
		}
	}
	var per []session.TargetStats
	for _, t := range targets {
		var v []float64
		for _, x := range runs {
			if x.Target == t {
				v = append(v, x.RPS)
			}
		}
		mean, sd := 0.0, 0.0
		for _, x := range v {
			mean += x
		}
		mean /= float64(len(v))
		for _, x := range v {
			sd += (x - mean) * (x - mean)
		}
		sd = math.Sqrt(sd / float64(len(v)-1))
		per = append(per, session.TargetStats{Target: t, SideStats: session.SideStats{
			MeanRPS: mean, StddevRPS: sd, CVPct: sd / mean * 100, MedianRPS: medianOf(v), MinRPS: minOf(v), MaxRPS: maxOf(v),
			MedianP99Ms: 4.2, MedianCPUPct: 97, MedianRSSMiB: 40}})
	}
	m := session.Matrix{
		Kind: "matrix", Targets: targets, Scenario: "ping", Seed: 42, Orders: orders, Runs: runs, PerTarget: per,
		Shape: session.Shape{Profile: "quick", Scenario: "ping", Connections: 100, Pipelining: 10, Rounds: 5, Seed: 42, WarmupS: 2, DurationS: 5, CooldownS: 2,
			Command: []string{"bin/bindrace", "matrix", "--targets", strings.Join(targets, ","), "--rounds", "5", "--seed", "42"}},
		SlotCorrelation: 0.09,
		Started:         time.Date(2026, 11, 3, 15, 0, 0, 0, time.UTC),
	}
	// What stats stores for the table and the position-bias chart (the page computes nothing).
	best := 0.0
	for _, t := range m.PerTarget {
		best = max(best, t.MeanRPS)
	}
	for i := range m.PerTarget {
		m.PerTarget[i].Runs = len(orders)
		m.PerTarget[i].VsBestPct = (m.PerTarget[i].MeanRPS - best) / best * 100
	}
	m.Normalized = stats.Normalized(runs)
	m.SlotFit = stats.SlotFit(m.Normalized)
	return m, session.Raw{Runs: runs}, map[string]any{"kernel": "Linux 6.1.0-27-amd64", "cpus": 2}
}

func minOf(v []float64) float64 { s := append([]float64(nil), v...); sort.Float64s(s); return s[0] }
func maxOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)-1]
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeFixture writes summary/raw/manifest like a session directory and renders from the files.
func renderFixture(t *testing.T, dir string, sum, raw, man any) []byte {
	t.Helper()
	files := map[string]any{"summary.json": sum, "raw.json": raw, "manifest.json": man}
	for name, v := range files {
		if err := os.WriteFile(filepath.Join(dir, name), mustJSON(t, v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(n string) []byte {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	page, err := Render(read("summary.json"), read("raw.json"), read("manifest.json"))
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return page
}

// ---- people's number formatting, mirrored from ts/format.ts ---------------------------------------

func groupInt(v float64) string {
	s := strconv.FormatInt(int64(math.Round(math.Abs(v))), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if v < 0 && math.Round(math.Abs(v)) != 0 {
		return "\u2212" + b.String()
	}
	return b.String()
}

func pctDelta(v float64) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', 2, 64)
	switch {
	case s == "0.00":
		return "0.00%"
	case v < 0:
		return "\u2212" + s + "%"
	default:
		return "+" + s + "%"
	}
}

func msText(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) + "\u00a0ms" }

func jsNum(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// ---- Go-only tests ---------------------------------------------------------------------------------

func TestRenderRaceSizeAndStructure(t *testing.T) {
	sum, raw, man := raceFixture("binding")
	page := renderFixture(t, t.TempDir(), sum, raw, man)
	t.Logf("race page: %d bytes (script %d bytes)", len(page), len(mustScript(t)))
	if len(page) > maxPageBytes {
		t.Fatalf("page is %d bytes, want ≤ %d", len(page), maxPageBytes)
	}
	s := string(page)
	for _, want := range []string{"<!DOCTYPE html>", `id="bindrace-data"`, `<title>bindrace: binding vs uws (ping) PASS</title>`, "Content-Security-Policy", "<style>"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(s, "<script"); n != 2 {
		t.Errorf("page has %d <script elements, want 2 (data + bundle)", n)
	}
	// Nothing is fetched at view time.
	for _, bad := range []string{"src=\"http", "href=\"http", "@import", "url(http"} {
		if strings.Contains(s, bad) {
			t.Errorf("page references the network: %q", bad)
		}
	}
	// The embedded data parses back to the same summary.
	got := extractData(t, s)
	var back struct {
		Summary session.Summary `json:"summary"`
		Raw     session.Raw     `json:"raw"`
	}
	if err := json.Unmarshal([]byte(got), &back); err != nil {
		t.Fatalf("embedded data: %v", err)
	}
	if back.Summary.MedianDeltaPct != sum.MedianDeltaPct || len(back.Summary.Pairs) != 10 || len(back.Raw.Runs) != 20 {
		t.Errorf("embedded data differs: median %v pairs %d runs %d", back.Summary.MedianDeltaPct, len(back.Summary.Pairs), len(back.Raw.Runs))
	}
}

func TestRenderMatrix(t *testing.T) {
	m, raw, man := matrixFixture()
	page := renderFixture(t, t.TempDir(), m, raw, man)
	if len(page) > maxPageBytes {
		t.Fatalf("matrix page is %d bytes, want ≤ %d", len(page), maxPageBytes)
	}
	if !bytes.Contains(page, []byte(`<body data-kind="matrix">`)) {
		t.Error("matrix page is not marked data-kind=matrix")
	}
}

func TestRenderEscapesHostileStrings(t *testing.T) {
	sum, raw, man := raceFixture(hostile)
	sum.Warnings = append(sum.Warnings, "line\u2028separator and <!-- comment --> and \u2029")
	man["note"] = hostile
	page := renderFixture(t, t.TempDir(), sum, raw, man)
	s := string(page)
	if strings.Contains(s, "<script>alert") {
		t.Fatal("hostile target name reached the page as markup")
	}
	if n := strings.Count(strings.ToLower(s), "</script"); n != 2 {
		t.Errorf("page has %d </script sequences, want exactly 2 (the two real elements)", n)
	}
	if n := strings.Count(s, "<!--"); n != 0 {
		t.Errorf("page contains %d \"<!--\"", n)
	}
	if strings.ContainsAny(s, "\u2028\u2029") {
		t.Error("page contains a raw U+2028/U+2029")
	}
	if !strings.Contains(s, `<title>bindrace: &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt; vs uws (ping) PASS</title>`) {
		t.Error("title not HTML-escaped")
	}
	// The data still round-trips to the exact hostile string.
	var back struct {
		Summary session.Summary `json:"summary"`
	}
	if err := json.Unmarshal([]byte(extractData(t, s)), &back); err != nil {
		t.Fatal(err)
	}
	if back.Summary.A != hostile {
		t.Errorf("target name after round trip = %q", back.Summary.A)
	}
}

func TestRenderErrors(t *testing.T) {
	if _, err := Render(nil, nil, nil); err == nil {
		t.Error("empty summary accepted")
	}
	if _, err := Render([]byte(`{"kind":`), nil, nil); err == nil {
		t.Error("broken summary accepted")
	}
	if _, err := Render([]byte(`[1,2]`), nil, nil); err == nil {
		t.Error("non-object summary accepted")
	}
	if _, err := Render([]byte(`{"kind":"race"}`), []byte("{"), nil); err == nil {
		t.Error("broken raw accepted")
	}
	if _, err := Render([]byte(`{"kind":"race","a":"x","b":"y"}`), nil, nil); err != nil {
		t.Errorf("minimal summary without raw/manifest: %v", err)
	}
}

func TestRenderTrimsLargeRaw(t *testing.T) {
	sum, raw, man := raceFixture("binding")
	type sample struct {
		T   float64 `json:"t"`
		RPS float64 `json:"rps"`
	}
	big := map[string]any{"runs": []any{}}
	var runs []any
	for _, r := range raw.Runs {
		b, _ := json.Marshal(r)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		var ss []sample
		for i := 0; i < 2000; i++ {
			ss = append(ss, sample{float64(i) / 100, r.RPS})
		}
		m["samples"] = ss
		runs = append(runs, m)
	}
	big["runs"] = runs
	page, err := Render(mustJSON(t, sum), mustJSON(t, big), mustJSON(t, man))
	if err != nil {
		t.Fatal(err)
	}
	if len(page) > maxPageBytes {
		t.Fatalf("page with a large raw.json is %d bytes", len(page))
	}
	if !strings.Contains(extractData(t, string(page)), `"trimmed":true`) {
		t.Error("large raw.json was not trimmed")
	}
}

func TestScriptBuiltOnce(t *testing.T) {
	a, b := mustScript(t), mustScript(t)
	if a != b || len(a) == 0 {
		t.Fatal("Script differs between calls or is empty")
	}
	if strings.Contains(strings.ToLower(a), "</script") || strings.Contains(a, "<!--") {
		t.Fatal("bundle contains a sequence that would break its <script> element")
	}
}

func mustScript(t *testing.T) string {
	t.Helper()
	s, err := Script()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var dataRE = regexp.MustCompile(`(?s)<script type="application/json" id="bindrace-data">(.*?)</script>`)

func extractData(t *testing.T, page string) string {
	t.Helper()
	m := dataRE.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no embedded data")
	}
	return m[1]
}

// ---- real browser ----------------------------------------------------------------------------------

func chromium(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("skipping the browser test: %s not found (apt-get install -y chromium)", chromiumPath)
	}
	return chromiumPath
}

func runChromium(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir=" + filepath.Join(dir, "profile"), "--virtual-time-budget=5000"}
	cmd := exec.CommandContext(ctx, chromium(t), append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

func artifactsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("BINDRACE_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(repoRoot(t), "build", "artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browse renders page in headless chromium, returns the DOM after the script ran and leaves a
// screenshot (and the page itself) under the artifacts dir.
func browse(t *testing.T, name string, page []byte) string {
	t.Helper()
	chromium(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + file
	dom := string(runChromium(t, dir, "--dump-dom", url))
	if !strings.Contains(dom, `data-rendered="true"`) {
		t.Fatalf("page did not render:\n%s", tail(dom, 3000))
	}
	art := artifactsDir(t)
	png := filepath.Join(art, name+".png")
	runChromium(t, dir, "--screenshot="+png, "--window-size=1280,2400", url)
	st, err := os.Stat(png)
	if err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot %s missing or tiny: %v", png, err)
	}
	_ = os.WriteFile(filepath.Join(art, name+".html"), page, 0o644)
	t.Logf("screenshot: %s (%d bytes)", png, st.Size())
	return dom
}

// chart returns the markup of <svg data-chart="name">…</svg> in dom.
func chart(t *testing.T, dom, name string) string {
	t.Helper()
	re := regexp.MustCompile(`(?s)<svg[^>]*data-chart="` + regexp.QuoteMeta(name) + `".*?</svg>`)
	m := re.FindString(dom)
	if m == "" {
		t.Fatalf("no <svg data-chart=%q> in the DOM", name)
	}
	return m
}

// points returns the data-value of every <tag … data-value="…"> in svg.
func points(svg, tag string) []string {
	re := regexp.MustCompile(`<` + tag + `\b[^>]*\bdata-value="([^"]*)"`)
	var out []string
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		out = append(out, m[1])
	}
	return out
}

func textOf(t *testing.T, dom, testid string) string {
	t.Helper()
	re := regexp.MustCompile(`data-testid="` + regexp.QuoteMeta(testid) + `"[^>]*>([^<]*)<`)
	m := re.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no element with data-testid=%q", testid)
	}
	return html.UnescapeString(m[1])
}

// expectMasthead checks the masthead's text, its tags dropped and its spaces folded.
func expectMasthead(t *testing.T, dom, want string) {
	t.Helper()
	m := regexp.MustCompile(`(?s)<header[^>]*data-testid="masthead"[^>]*>(.*?)</header>`).FindStringSubmatch(dom)
	if m == nil {
		t.Fatal("no masthead")
	}
	text := strings.Join(strings.Fields(html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[1], " "))), " ")
	if text != want {
		t.Errorf("masthead %q, want %q", text, want)
	}
}

func ptr(x float64) *float64 { return &x }

// checkPairCards: one card per pair, with the numbers of summary.json.
func checkPairCards(t *testing.T, dom string, sum session.Summary) {
	t.Helper()
	cards := strings.Split(dom, `<article `)[1:]
	if len(cards) != len(sum.Pairs) {
		t.Fatalf("%d pair cards, want %d", len(cards), len(sum.Pairs))
	}
	for i, p := range sum.Pairs {
		c := cards[i]
		for attr, want := range map[string]string{"data-rps-a": jsNum(p.A.RPS), "data-rps-b": jsNum(p.B.RPS), "data-order": p.Order, "data-delta": jsNum(p.DeltaPct)} {
			if !strings.Contains(c, attr+`="`+want+`"`) {
				t.Errorf("pair %d: %s is not %q", i+1, attr, want)
			}
		}
		for tid, want := range map[string]string{"rps-a": groupInt(p.A.RPS), "rps-b": groupInt(p.B.RPS), "pair-delta": pctDelta(p.DeltaPct), "p99-a": msText(p.A.P99Ms), "p99-b": msText(p.B.P99Ms)} {
			if got := textOf(t, c, tid); got != want {
				t.Errorf("pair %d: %s shows %q, want %q", i+1, tid, got, want)
			}
		}
	}
}

// fixtureDecision is the fixture's verdict: a PASS on throughput for a, its median delta med.
func fixtureDecision(a string, med float64) session.Decision {
	return session.Decision{
		Verdict:  session.Pass,
		Headline: fmt.Sprintf("PASS: %s %+.2f%% vs uws (95%% CI +10.9%% … +12.8%%), p99 −8.7%%", a, med),
		Reasons: []string{
			fmt.Sprintf("median throughput delta %+.2f%% ≥ −2.00%% (CI +10.90%% … +12.80%%, entirely above)", med),
			"p99 delta −8.72% ≤ +10.00%",
			"errors 0 ≤ 0",
		},
		Checks: []session.Check{
			{Metric: "rps", Verdict: session.Pass, Delta: ptr(med), Interval: &[2]float64{10.9, 12.8}, Confidence: ptr(0.9785), Limit: -2, Bound: "min", N: 10, Reason: "throughput"},
			{Metric: "p99_ms", Verdict: session.Pass, Delta: ptr(-8.72), Interval: &[2]float64{-10.4, -6.9}, Confidence: ptr(0.9785), Limit: 10, Bound: "max", N: 10, Reason: "p99"},
			{Metric: "errors", Verdict: session.Pass, Delta: ptr(0), Limit: 0, Bound: "max", Reason: "errors"},
		},
	}
}
