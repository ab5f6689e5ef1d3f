package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// seed 001's ten pairs: rps A, rps B, p99 A, p99 B.
var seedPairs = [][4]float64{
	{481759, 429215, 4.053, 4.475}, {484113, 425257, 3.974, 4.475},
	{499080, 434250, 3.896, 4.387}, {500261, 448291, 3.896, 4.301},
	{497510, 439557, 3.896, 4.387}, {483383, 441113, 4.053, 4.387},
	{506037, 430500, 3.819, 4.475}, {495532, 434787, 3.896, 4.387},
	{495049, 443162, 3.896, 4.301}, {490719, 440558, 3.974, 4.387},
}

func run(target string, slot int, rps, p99 float64) session.Run {
	return session.Run{Target: target, Scenario: "ping", Slot: slot, RPS: rps, Responses: int64(rps * 10), DurationS: 10,
		P50Ms: 1.9, P95Ms: p99 - 0.3, P99Ms: p99, P999Ms: p99 + 1, MaxMs: 12, ServerCPUPct: 98.3,
		RPSPerCPUSecond: rps / 0.983, RSSMiB: 59.6, PeakRSSMiB: 61, StartupMs: 35, ArtifactBytes: 4 << 20}
}

// writeRace writes a complete race session directory and returns it with its summary.
func writeRace(t *testing.T, a string) (string, *session.Summary) {
	t.Helper()
	var ps []session.Pair
	var raw session.Raw
	for i, v := range seedPairs {
		order := []string{"AB", "BA"}[i%2]
		p := session.Pair{Index: i + 1, Order: order, A: run(a, i%2, v[0], v[2]), B: run("uws", 1-i%2, v[1], v[3])}
		p.B.HeapMiB = 6.07
		ps = append(ps, p)
		raw.Runs = append(raw.Runs, p.A, p.B)
	}
	s := stats.Summarize(ps, session.Thresholds{MinMedianDeltaPct: -2, MaxP99DeltaPct: 10}, stats.FixedDesign(0, (1-0.95)/2))
	s.FamilyConfidence, s.FallibleChecks = 0.95, 2
	s.BVersion = "20.30.0"
	s.Connections, s.Pipelining = 100, 10
	s.Shape = session.Shape{Profile: "release-linux", Scenario: "ping", Connections: 100, Pipelining: 10, Workers: 4, Pairs: 10,
		WarmupS: 2, DurationS: 10, CooldownS: 1,
		Command: []string{"bindrace", "race", "--a", a, "--b", "uws", "--profile", "release-linux"}}
	s.Counters = map[string]map[string]float64{"a": {"instructions": 9177.51, "branches": 1878.95}, "b": {"instructions": 10450}}
	s.CountersMode = "cachegrind"
	s.CountersUnsupported = map[string]string{"cycles": "no PMU in this VM (ENOENT)"}
	gate.Apply(&s, nil)

	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	writeJSON(t, filepath.Join(dir, "raw.json"), raw)
	writeJSON(t, filepath.Join(dir, "manifest.json"), map[string]any{
		"kernel": "Linux 6.1.0-26-amd64", "cpu_model": "Intel Xeon E5-2680 v4", "cpus": 2,
		"versions": map[string]any{"go": "go1.26.8", "node": "v20.18.0"},
	})
	return dir, &s
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func renderT(t *testing.T, dir, format string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(dir, format, &buf); err != nil {
		t.Fatalf("Render %s: %v", format, err)
	}
	return buf.String()
}

func TestMarkdown(t *testing.T) {
	dir, s := writeRace(t, "binding")
	md := renderT(t, dir, "md")
	expectAll(t, "markdown", md,
		"# binding vs uws — ping",
		"**PASS: binding +12.7% throughput vs uws (pinned 20.30.0), 10/10 pairs won, regression threshold passed; p99 -10.3% (saturation, context)**",
		"+12.71% throughput against the pinned upstream uws 20.30.0",
		"- 100 connections", "- pipelining 10", "10 × 10s pairs, 2s warm-up",
		"## Regression threshold: passed",
		"## All 10 pairs, no selection.",
		"| throughput (responses/s) | 495,290 | 437,172 | +12.71% | higher is better |",
		"| p99 latency | 3.90 ms | 4.39 ms | -11.19% | lower is better |",
		"order effect", "95% interval of the median delta", "real coverage 97.85%",
		"| rps | PASS | +12.71% | [+11.39%, +14.93%] | 97.85% | ≥ -2.00% |", "| p99_ms | context | -10.31% |", "none (context) |", "p99 3.90 ms (binding; closed loop at saturation: context, not gated)", "| errors | PASS | 0 | — | — | ≤ 0 |",
		"## CPU counters per response", "| instructions | 9,177.51 | 10,450.00 | -12.18% |",
		"Counted on: CPU unknown.", // a session from before bindrace recorded it
		"cycles: not supported: no PMU in this VM (ENOENT)",
		"bindrace race --a binding --b uws --profile release-linux",
		"| versions.node | v20.18.0 |", "| cpus | 2 |",
	)
	for _, p := range s.Pairs {
		row := "| " + []string{"01", "02", "03", "04", "05", "06", "07", "08", "09", "10"}[p.Index-1] + " | " + p.Order + " | " + fmtRPS(p.A.RPS)
		if !strings.Contains(md, row) {
			t.Errorf("markdown lacks pair row %q", row)
		}
	}
	if testing.Verbose() {
		t.Log("\n" + md)
	}
	s.CountedCPU = &session.CountedCPU{Vendor: "AuthenticAMD", Model: "AMD EPYC", GuestVendor: "GenuineIntel",
		GuestFeatures: []string{"avx2", "rdtscp"}, Hidden: []string{"rdtscp"}, Switches: []string{"GODEBUG=cpu.rdtscp=off"}}
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	expectAll(t, "markdown with the counts' CPU", renderT(t, dir, "md"),
		"Counted on: AMD EPYC (AuthenticAMD); under valgrind: GenuineIntel, avx2 rdtscp; switched off: GODEBUG=cpu.rdtscp=off.")
}

func TestCSV(t *testing.T) {
	dir, _ := writeRace(t, "binding")
	rows, err := csv.NewReader(strings.NewReader(renderT(t, dir, "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*len(seedPairs)+1 {
		t.Fatalf("%d rows, want runs + header = %d", len(rows), 2*len(seedPairs)+1)
	}
	if rows[0][0] != "index" || rows[1][1] != "AB" || rows[1][2] != "A" || rows[3][2] != "B" || rows[1][6] != "481759" {
		t.Errorf("unexpected rows: %q %q %q", rows[0], rows[1], rows[3])
	}
}

func TestJSONIsVerbatim(t *testing.T) {
	dir, _ := writeRace(t, "binding")
	want, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if got := renderT(t, dir, "json"); got != string(want) {
		t.Error("json format must re-emit summary.json byte for byte")
	}
}

func TestBenchfmt(t *testing.T) {
	dir, s := writeRace(t, "binding")
	out := renderT(t, dir, "benchfmt")
	r := benchfmt.NewReader(strings.NewReader(out), "session.txt")
	var results []*benchfmt.Result
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			results = append(results, rec.Clone())
		case *benchfmt.SyntaxError:
			t.Errorf("syntax error: %v", rec)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	// 20 runs plus one counters line per side.
	if len(results) != 22 {
		t.Fatalf("%d results, want 22:\n%s", len(results), out)
	}
	first := results[0]
	if got := string(first.Name.Full()); got != "Race/target=binding/scenario=ping" { // Full() drops "Benchmark"
		t.Errorf("name %q", got)
	}
	if first.GetConfig("goos") != "linux" || first.GetConfig("pkg") != "bindrace" || first.GetConfig("cpu") != "Intel Xeon E5-2680 v4" {
		t.Errorf("config goos=%q pkg=%q cpu=%q", first.GetConfig("goos"), first.GetConfig("pkg"), first.GetConfig("cpu"))
	}
	a0 := s.Pairs[0].A
	if first.Iters != int(a0.Responses) {
		t.Errorf("iters %d, want responses %d", first.Iters, a0.Responses)
	}
	for unit, want := range map[string]float64{"rps": a0.RPS, "p99-ms": a0.P99Ms, "sec/op": 1 / a0.RPS, "rss-B": a0.RSSMiB * 1024 * 1024, "errors": 0} {
		got, ok := first.Value(unit)
		if !ok || (got-want)/want > 1e-6 || (want-got)/want > 1e-6 && want != 0 {
			t.Errorf("%s = %v (%v), want %v", unit, got, ok, want)
		}
	}
	last := results[len(results)-1]
	if got, _ := last.Value("instructions/op"); got != 10450 || !strings.Contains(string(last.Name.Full()), "target=uws") {
		t.Errorf("counters line %q instructions %v", last.Name.Full(), got)
	}
	if u := r.Units(); u.GetBetter("rps") != 1 || u.Get("instructions/op", "assume") == nil || u.Get("instructions/op", "assume").Value != "exact" {
		t.Errorf("unit metadata: better %d assume %v", u.GetBetter("rps"), u.Get("instructions/op", "assume"))
	}
}

func TestHTMLIsThePageWithTheSession(t *testing.T) {
	dir, _ := writeRace(t, "<script>alert(1)</script>")
	html := renderT(t, dir, "html")
	if strings.Contains(html, "<script>alert(1)") {
		t.Fatal("a target name reached the page unescaped")
	}
	// The page draws itself from the embedded session (its browser test checks what it shows).
	expectAll(t, "html", html, "<!DOCTYPE html>", `id="bindrace-data"`, `\u003cscript\u003ealert(1)`)
	// The SVG namespace URI is a name, not a fetch; anything that loads would be src/href/url().
	for _, fetch := range []string{`src="http`, `href="http`, "url(http", "<link", "import("} {
		if strings.Contains(html, fetch) {
			t.Errorf("report.html must not reach the network: contains %q", fetch)
		}
	}
}

func TestWriteAllAndFailedPair(t *testing.T) {
	dir, s := writeRace(t, "binding")
	s.Pairs[3].B.Error = "server exited with status 139"
	s.Pairs[3].B.RPS = 0
	s.Incomplete = "uws crashed in pair 4"
	*s = stats.Summarize(s.Pairs, s.Thresholds, stats.FixedDesign(0, 0))
	s.Incomplete = "uws crashed in pair 4"
	gate.Apply(s, nil)
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	if err := WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.md", "summary.csv", "report.html"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	expectAll(t, "summary.md", string(md), "failed: server exited with status 139", "session incomplete", "uws crashed in pair 4", "left out of the statistics")
	bf := renderT(t, dir, "benchfmt")
	if strings.Count(bf, "BenchmarkRace/target=uws/scenario=ping ") != 9 || !strings.Contains(bf, "# left out a failed run of uws") {
		t.Errorf("failed run not left out of benchfmt:\n%s", bf)
	}
	if err := Render(dir, "pdf", &bytes.Buffer{}); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestMatrix(t *testing.T) {
	targets := []string{"binding", "fasthttp", "uws"}
	orders := [][]string{{"uws", "binding", "fasthttp"}, {"fasthttp", "uws", "binding"}}
	var runs []session.Run
	for _, o := range orders {
		for slot, tg := range o {
			runs = append(runs, run(tg, slot, map[string]float64{"binding": 490000, "fasthttp": 300000, "uws": 430000}[tg]*(1+0.01*float64(slot)), 4))
		}
	}
	m := session.Matrix{Kind: "matrix", Targets: targets, Scenario: "ping", Seed: 42, Orders: orders, Runs: runs,
		Shape: session.Shape{Rounds: 2, Connections: 100, Pipelining: 10, DurationS: 10, WarmupS: 2,
			Command: []string{"bindrace", "matrix", "--targets", "binding,fasthttp,uws", "--seed", "42"}}}
	stats.SummarizeMatrix(&m)
	dir := t.TempDir()
	writeJSON(t, filepath.Join(dir, "summary.json"), m)
	md := renderT(t, dir, "md")
	expectAll(t, "matrix markdown", md, "# Matrix — ping: binding, fasthttp, uws", "order seed 42", "round 2: fasthttp, uws, binding",
		"Slot correlation r = +", "## All 6 runs, no selection.", "| fasthttp | 303,000 |", "No manifest.json")
	rows, err := csv.NewReader(strings.NewReader(renderT(t, dir, "csv"))).ReadAll()
	if err != nil || len(rows) != len(runs)+1 || rows[4][0] != "2" || rows[4][1] != "fasthttp uws binding" {
		t.Errorf("matrix csv: %v %q", err, rows)
	}
	if html := renderT(t, dir, "html"); !strings.Contains(html, `\"kind\":\"matrix\"`) && !strings.Contains(html, `"kind":"matrix"`) {
		t.Error("matrix html does not embed the matrix session")
	}
	if bf := renderT(t, dir, "benchfmt"); strings.Count(bf, "\nBenchmarkRace/") != len(runs) {
		t.Errorf("matrix benchfmt:\n%s", bf)
	}
}

func TestFormat(t *testing.T) {
	for got, want := range map[string]string{
		fmtRPS(495290.5):   "495,290", // the published page rounds the same way
		fmtRPS(999):        "999",
		fmtPct(12.7123):    "+12.71%",
		fmtPct(-11.2):      "-11.20%",
		fmtMs(3.635):       "3.63 ms",
		group(-1234567, 0): "-1,234,567",
		fmtCount(0.131):    "0.131",
		shellQuote([]string{"bindrace", "race", "--b", "cmd:./srv --port {port}"}): "bindrace race --b 'cmd:./srv --port {port}'",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// expectAll checks that text, a rendered report named by what, holds every one of wants; the
// text is logged once when any is missing.
func expectAll(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	missing := false
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q", what, want)
			missing = true
		}
	}
	if missing {
		t.Logf("%s:\n%s", what, text)
	}
}

// The instruction check's attribution in summary.md: the ranked functions with their shares,
// everything else, the total, the by-file view; and, without per-function counts, why not.
func TestMarkdownAttribution(t *testing.T) {
	dir, s := writeRace(t, "binding-plain")
	s.B = "binding"
	s.Counters = map[string]map[string]float64{"a": {"instructions": 2444.9}, "b": {"instructions": 2134.7}}
	s.Thresholds.CounterMaxDeltaPct = map[string]float64{"instructions": 1}
	rows := func(vs ...float64) *session.Breakdowns {
		b := &session.Breakdown{Resolution: 2.3, TotalResolution: 10}
		for i, name := range []string{"br::process(br_loop*, br::Conn*)", "main.ping", "br::parse_head"}[:len(vs)] {
			b.Rows = append(b.Rows, session.BreakdownRow{Name: name, Instructions: vs[i]})
		}
		return &session.Breakdowns{Functions: b, Files: b}
	}
	s.Breakdowns = map[string]*session.Breakdowns{"a": rows(836, 344, 120), "b": rows(686.2, 344)}
	stripped := "bin/x has no symbol table (stripped): its own functions are counted in the \"[no symbol: stripped or generated code]\" row, so this table cannot say which of them did the work; the totals are complete"
	s.Breakdowns["a"].Functions.Notes = []string{stripped}
	gate.Apply(s, nil)
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	md := renderT(t, dir, "md")
	expectAll(t, "markdown", md,
		"## Where the instructions went: binding-plain − binding",
		"Check instructions: 2,444.90 vs 2,134.70 instructions per response, delta +310.20 (+14.53%)",
		"| delta | share of the delta | points of +14.53% | binding-plain | binding | function |",
		"| +149.80 | 48.3% | +7.02% | 836.00 | 686.20 | `br::process(br_loop*, br::Conn*)` |",
		"| +120.00 | 38.7% | +5.62% | 120.00 | · | `br::parse_head` (only binding-plain) |",
		"| +40.40 | 13.0% | +1.89% | — | — | everything else: 0 more functions above the resolution, 1 with deltas each under it (those and the rows under the resolution on both sides: +40.40 together) |",
		"| +310.20 | 100.0% | +14.53% | 2,444.90 | 2,134.70 | total |",
		"By source file", "| delta | share of the delta | points of +14.53% | binding-plain | binding | source file |",
		"- "+stripped,
	)
	s.Breakdowns = nil
	gate.Apply(s, nil)
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	expectAll(t, "markdown", renderT(t, dir, "md"), "No table: this session recorded no per-function counts of both sides")
}

// The paced system calls of both sides in summary.md, every call either made; none counted says why.
func TestMarkdownSyscalls(t *testing.T) {
	dir, s := writeRace(t, "regress")
	s.Syscalls = &session.SyscallCounts{Kernel: "6.1.0-27-amd64", N: 20000, Pipelining: 10, Reps: 3,
		PerResponse: map[string]map[string]float64{"a": {"syscalls": 1.803, "context-switches": 0.43, "syscall:getppid": 1, "syscall:futex": 0.4},
			"b": {"syscalls": 0.827, "context-switches": 0.47, "syscall:futex": 0.397}}}
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	expectAll(t, "markdown", renderT(t, dir, "md"), "## System calls per response (paced)", "kernel 6.1.0-27-amd64",
		"| system calls | 1.803 | 0.827 | +118.02% |", "| `getppid` | 1.000 | 0.000 | — |", "| `futex` | 0.400 | 0.397 | +0.76% |")
	s.Syscalls = &session.SyscallCounts{Unsupported: "no tracefs mounted"}
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	expectAll(t, "markdown", renderT(t, dir, "md"), "Not counted: no tracefs mounted.")
}

// TestMarkdownReading: a reading of the rig names itself in the runtime table, so a new one
// shows without a change here; a summary without readings has no such row.
func TestMarkdownReading(t *testing.T) {
	dir, s := writeRace(t, "binding")
	if md := renderT(t, dir, "md"); strings.Contains(md, "widgets per response") {
		t.Fatal("a reading row without a reading")
	}
	a, b, d := 2.5, 2.0, 25.0
	s.Runtime["widgets_per_response"] = session.Figure{A: &a, B: &b, DeltaPct: &d, Label: "widgets per response", LowerIsBetter: true}
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	expectAll(t, "markdown with a reading", renderT(t, dir, "md"), "| widgets per response | 2.500 | 2.000 | +25.00% | lower is better |")
	s.Runtime["share_pct"] = session.Figure{A: &a, B: &b, DeltaPct: &d, Label: "a thread's CPU share", Context: true}
	writeJSON(t, filepath.Join(dir, "summary.json"), s)
	expectAll(t, "markdown with a context reading", renderT(t, dir, "md"), "| a thread's CPU share | 2.500 | 2.000 | +25.00% | context: neither higher nor lower is better |")
}

// A pooled set's page opens with its pooled check, which no race's own page shows; the other
// formats print the races only (json: the index, which carries it).
func TestRenderSessionPooledSet(t *testing.T) {
	set := t.TempDir()
	ix := session.Index{Kind: "race-set", Verdict: session.Pass, Headline: "overall PASS: the pooled throughput check PASS",
		Pooled: &session.Check{Metric: "pooled:rps", Verdict: session.Pass, Reason: "pooled throughput over 2 races: median delta +12.00%"}}
	for _, name := range []string{"get-user", "get-user-c1"} {
		dir, _ := writeRace(t, "binding")
		if err := os.Rename(dir, filepath.Join(set, name)); err != nil {
			t.Fatal(err)
		}
		ix.Sessions = append(ix.Sessions, session.IndexEntry{Name: name, Dir: name, Verdict: session.Pass})
	}
	writeJSON(t, filepath.Join(set, session.IndexFile), ix)
	var md, csv bytes.Buffer
	if err := RenderSession(&md, set, "md"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "# overall PASS: the pooled throughput check PASS\n\npooled throughput over 2 races: median delta +12.00%: PASS\n") {
		t.Errorf("md opens %q", md.String()[:min(200, md.Len())])
	}
	if err := RenderSession(&csv, set, "csv"); err != nil || strings.Contains(csv.String(), "pooled") {
		t.Errorf("csv: %v %q", err, csv.String())
	}
}
