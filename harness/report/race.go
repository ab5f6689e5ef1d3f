package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// raceDocument lays a race out like the release page it automates (seed 001): headline delta,
// the run's shape, the verdict, every pair, the runtime table, statistics, counters, how to
// reproduce it and where it ran.
func raceDocument(sd *sessionDir) document {
	s := sd.race
	d := document{Title: fmt.Sprintf("%s vs %s — %s", s.A, s.B, s.Scenario)}
	raceHeader(&d, s)
	gateSection(&d, s)
	designSection(&d, s)
	valid := pairsSection(&d, sd)
	dbSection(&d, s)
	d.h2("Throughput, tails and runtime")
	d.p("Throughput is read together with the tails, CPU and memory. Figures are medians over the runs of each side; the throughput delta is the median of the per-pair deltas.")
	d.table([]string{"metric", s.A, s.B, "delta", "how to read"}, runtimeRows(s))
	latencySection(&d, s)
	statsSection(&d, s, valid)
	countersSection(&d, s)
	syscallsSection(&d, s)
	sampledSection(&d, s)
	attributionSections(&d, s)
	tailSections(&d, s.Warnings, s.Shape.Command, sd.manifest)
	return d
}

// raceHeader is the headline and the run's shape.
func raceHeader(d *document, s *session.Summary) {
	a, b := s.A, s.B
	headline := s.Headline
	if headline == "" {
		headline = gate.Headline(s)
	}
	d.strong(headline)
	upstream := b
	if s.BVersion != "" {
		upstream += " " + s.BVersion
	}
	switch {
	case s.Rate != nil:
		d.p(fmt.Sprintf("%s p99 against the pinned upstream %s at %s requests/s, an open loop (median of the per-pair deltas).",
			fmtPct(s.Paired[stats.MetricP99].MedianPct), upstream, fmtRPS(s.Rate.RPS)))
	case s.DecideOn == stats.MetricRPSPerCPUSec:
		d.p(fmt.Sprintf("%s throughput per server CPU-second against the pinned upstream %s (median of the per-pair deltas; the figure the verdict rests on). Raw throughput: %s.",
			fmtPct(s.Paired[stats.MetricRPSPerCPUSec].MedianPct), upstream, fmtPct(s.MedianDeltaPct)))
	default:
		d.p(fmt.Sprintf("%s throughput against the pinned upstream %s (median of the per-pair deltas).",
			fmtPct(s.MedianDeltaPct), upstream))
	}

	sh := s.Shape
	pairs := sh.Pairs
	if pairs == 0 {
		pairs = len(s.Pairs)
	}
	shape := []string{
		fmt.Sprintf("%d connections", firstNonZero(s.Connections, sh.Connections)),
		fmt.Sprintf("pipelining %d", firstNonZero(s.Pipelining, sh.Pipelining)),
		fmt.Sprintf("%d × %s pairs, %s warm-up, %s cool-down", pairs, fmtSeconds(sh.DurationS), fmtSeconds(sh.WarmupS), fmtSeconds(sh.CooldownS)),
	}
	if sh.Workers > 0 {
		shape = append(shape, fmt.Sprintf("%d client workers", sh.Workers))
	}
	if sh.CPUsServer != "" || sh.CPUsClient != "" {
		shape = append(shape, fmt.Sprintf("server CPUs %s, client CPUs %s", orDash(sh.CPUsServer), orDash(sh.CPUsClient)))
	}
	tails := a
	if s.Rate == nil {
		tails += "; closed loop at saturation: context, not gated"
	}
	shape = append(shape,
		fmt.Sprintf("p95 %s (%s)", fmtMs(s.StatsA.MedianP95Ms), tails),
		fmt.Sprintf("p99 %s (%s)", fmtMs(s.StatsA.MedianP99Ms), tails),
		verdictPhrase(s.Verdict))
	d.list(shape...)

}

// gateSection is the verdict of each check, the reasons and why a session stopped early.
func gateSection(d *document, s *session.Summary) {
	d.h2("Regression threshold: " + verdictWord(s.Verdict))
	d.p(fmt.Sprintf("Each check passes when the whole %s interval of its paired median delta is on the good side of its limit, fails when it is wholly on the bad side, and is inconclusive in between; deterministic counts are compared directly. %d statistical checks share a %s family confidence, so a build raced against itself fails at most %s of the time.",
		fmtLevel(s.CILevel), s.FallibleChecks, fmtLevel(s.FamilyConfidence), fmtLevel(1-s.FamilyConfidence)))
	if len(s.Checks)+len(s.Context) > 0 {
		var rows [][]string
		for _, c := range append(s.Checks[:len(s.Checks):len(s.Checks)], s.Context...) {
			rows = append(rows, checkRow(c))
		}
		d.table([]string{"check", "verdict", "delta", "interval", "real coverage", "limit"}, rows)
	}
	if len(s.Context) > 0 {
		d.p("Rows marked context are measured and shown, and gate nothing: a saturated closed loop's percentiles are its queue over its throughput, and latency above a side's capacity is a growing queue. Latency gates in an open loop at a rate both sides sustain.")
	}
	if len(s.Reasons) > 0 {
		d.list(s.Reasons...)
	}
	d.stoppedEarly(s.Incomplete, "")

}

// pairsSection lists every pair; it returns how many are valid (stats counted them: the pairs
// behind the throughput delta).
func pairsSection(d *document, sd *sessionDir) (valid int) {
	s := sd.race
	a, b := s.A, s.B
	d.h2(fmt.Sprintf("All %d pairs, no selection.", len(s.Pairs)))
	valid = s.Paired[stats.MetricRPS].N
	d.p(fmt.Sprintf("The order alternated AB/BA so that warm-up and drift of the machine give neither side a steady advantage. %s won on throughput in %d of %d pairs.",
		a, s.Wins, valid))
	var rows [][]string
	for _, p := range s.Pairs {
		delta := fmtPct(p.DeltaPct)
		if !stats.PairValid(p) {
			delta = "failed: " + strings.TrimSpace(p.A.Error+" "+p.B.Error)
		}
		rows = append(rows, []string{fmt.Sprintf("%02d", p.Index), p.Order, fmtRPS(p.A.RPS), fmtRPS(p.B.RPS), delta,
			fmt.Sprintf("%s / %s", fmtMs(p.A.P99Ms), fmtMs(p.B.P99Ms))})
	}
	d.table([]string{"pair", "order", a + " " + unitOf(s), b + " " + unitOf(s), "delta", "p99 " + a + " / " + b}, rows)
	if sd.raw != nil && len(sd.raw.Runs) > 2*len(s.Pairs) {
		d.p(fmt.Sprintf("raw.json holds %d runs, %d more than the pairs above: runs of a pair that did not finish.",
			len(sd.raw.Runs), len(sd.raw.Runs)-2*len(s.Pairs)))
	}

	return valid
}

// statsSection is the table of the paired statistics.
func statsSection(d *document, s *session.Summary, valid int) {
	a, b := s.A, s.B
	d.h2("Statistics")
	ci := "none: too few pairs for a bounded interval"
	if s.CIPct != nil {
		ci = fmt.Sprintf("[%s, %s], real coverage %s (order statistics of the per-pair deltas; exact binomial, distribution-free)",
			fmtPct(s.CIPct[0]), fmtPct(s.CIPct[1]), fmtLevel(s.CIConfidence))
	}
	d.table([]string{"statistic", "value"}, [][]string{
		{"median delta", fmtPct(s.MedianDeltaPct)},
		{fmtLevel(s.CILevel) + " interval of the median delta", ci},
		{"min / max delta", fmtPct(s.MinDeltaPct) + " / " + fmtPct(s.MaxDeltaPct)},
		{"wins", fmt.Sprintf("%d of %d pairs", s.Wins, valid)},
		{"CV of throughput, " + a, fmtPlainPct(s.StatsA.CVPct)},
		{"CV of throughput, " + b, fmtPlainPct(s.StatsB.CVPct)},
		{"order effect", fmtPct(s.OrderEffectPct) + " (mean delta of AB pairs minus BA pairs: positive means " + a + " gains from running first; near 0 means order does not matter)"},
	})

}

// checkRow is one gated check as a table row.
func checkRow(c session.Check) []string {
	delta, iv, cov := dash, dash, dash
	if c.Delta != nil {
		if c.Metric == "errors" {
			delta = fmt.Sprint(*c.Delta)
		} else {
			delta = fmtPct(*c.Delta)
		}
	}
	if c.Interval != nil {
		iv = fmt.Sprintf("[%s, %s]", fmtPct(c.Interval[0]), fmtPct(c.Interval[1]))
	}
	if c.Confidence != nil {
		cov = fmtLevel(*c.Confidence)
	}
	limit := "≤ " + fmtPct(c.Limit)
	switch {
	case c.Verdict == session.Context:
		limit = "none (context)"
	case c.Bound == "min":
		limit = "≥ " + fmtPct(c.Limit)
	}
	if c.Metric == "errors" {
		limit = fmt.Sprintf("≤ %d", int64(c.Limit))
	}
	return []string{c.Metric, c.Verdict, delta, iv, cov, limit}
}

// runtimeRow is one row of the runtime table: the key of its figure in Summary.Runtime, its
// name, how to read it and how to print it.
type runtimeRow struct {
	key, name, read string
	format          func(float64) string
}

var runtimeTable = []runtimeRow{
	{"p50_ms", "p50 latency", "lower is better", fmtMs},
	{"p95_ms", "p95 latency", "lower is better", fmtMs},
	{"p99_ms", "p99 latency", "lower is better", fmtMs},
	{"p999_ms", "p99.9 latency", "lower is better", fmtMs},
	{"server_cpu_pct", "server CPU (% of one core)", "context: below ~90% the run was client-bound", fmtPlainPct},
	{"rps_per_cpu_second", "responses per CPU-second", "higher is better", fmtRPS},
	{"rss_mib", "RSS after warm-up", "lower is better", fmtMiB},
	{"peak_rss_mib", "peak RSS", "lower is better", fmtMiB},
	{"heap_mib", "heap (Go or V8)", "lower is better; runtimes count differently", fmtMiB},
	{"startup_ms", "startup (spawn to first response)", "lower is better", fmtMs},
	{"artifact_bytes", "artefact size", "context: a binary and a JS bundle are different things", fmtBytes},
	{"syscalls_per_response", "system calls per response (live load)", "lower is better; batching moves it", fmtCount},
	{"context_switches_per_response", "context switches per response (live load)", "lower is better", fmtCount},
	{"sampled_ns_per_response", "sampled CPU time per response (ns)", "lower is better; perf cpu-clock samples, kernel included", fmtCount},
	{"sampled_kernel_ns_per_response", "of which in the kernel (ns)", "lower is better", fmtCount},
}

// optionalRows are the runtimeTable rows only a race counting system calls or sampling has:
// left out, rather than shown as not reported, when neither side has them.
var optionalRows = map[string]bool{"syscalls_per_response": true, "context_switches_per_response": true,
	"sampled_ns_per_response": true, "sampled_kernel_ns_per_response": true}

// runtimeRows renders the runtime table stats stored in the summary (Summary.Runtime).
func runtimeRows(s *session.Summary) [][]string {
	row := func(key, name, read string, format func(float64) string) []string {
		f := s.Runtime[key]
		delta := dash
		if f.DeltaPct != nil {
			delta = fmtPct(*f.DeltaPct)
		}
		return []string{name, format(orNaN(f.A)), format(orNaN(f.B)), delta, read}
	}
	rows := [][]string{row("rps", "throughput ("+unitOf(s)+")", "higher is better", fmtRPS)}
	for _, r := range runtimeTable {
		if f := s.Runtime[r.key]; optionalRows[r.key] && f.A == nil && f.B == nil {
			continue
		}
		rows = append(rows, row(r.key, r.name, r.read, r.format))
	}
	rows = append(rows, []string{"errors (all runs)", fmt.Sprint(s.StatsA.Errors), fmt.Sprint(s.StatsB.Errors), dash, "should be 0"})
	// Every reading of the rig names itself: a new one shows here without a change to the report.
	var readings []string
	for key, f := range s.Runtime {
		if f.Label != "" {
			readings = append(readings, key)
		}
	}
	sort.Slice(readings, func(i, j int) bool { return s.Runtime[readings[i]].Label < s.Runtime[readings[j]].Label })
	for _, key := range readings {
		f := s.Runtime[key]
		read := "higher is better"
		switch {
		case f.Context:
			read = "context: neither higher nor lower is better"
		case f.LowerIsBetter:
			read = "lower is better"
		}
		r := row(key, f.Label, read, fmtCount)
		r[1], r[2] = notRead(r[1], f.NotReadA), notRead(r[2], f.NotReadB)
		rows = append(rows, r)
	}
	return rows
}

// notRead is a reading's cell with the reason its side has no value, when it gives one.
func notRead(cell, why string) string {
	if why == "" {
		return cell
	}
	return cell + " (" + why + ")"
}

// orNaN is *v, or NaN for a figure not reported (the formats print a dash).
func orNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// counterOrder lists perf's counters in the order a reader expects; others follow by name.
var counterOrder = []string{"cycles", "instructions", "ipc", "branches", "branch-misses", "cache-references", "cache-misses",
	"task-clock", "context-switches", "page-faults"}

func sortCounters(names []string) {
	rank := func(n string) int {
		for i, c := range counterOrder {
			if strings.EqualFold(n, c) {
				return i
			}
		}
		return len(counterOrder)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
}

func countersSection(d *document, s *session.Summary) {
	ca, cb := s.Counters["a"], s.Counters["b"]
	if len(ca) == 0 && len(cb) == 0 && len(s.CountersUnsupported) == 0 {
		return
	}
	d.h2("CPU counters per response")
	mode := s.CountersMode
	if mode == "" {
		mode = "perf"
	}
	d.p(fmt.Sprintf("Counts divided by the responses of the measurement window (%s mode); fewer is better. Instruction counts are comparable across sessions, times are not.", mode))
	if mode == "cachegrind" {
		// The code paths counted depend on the CPU valgrind showed the server (docs/counters.md).
		d.p("Counted on: " + s.CountedCPU.Describe() + ".")
	}
	seen := map[string]bool{}
	var names []string
	for _, m := range []map[string]float64{ca, cb} {
		for n := range m {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sortCounters(names)
	var rows [][]string
	for _, n := range names {
		va, okA := ca[n]
		vb, okB := cb[n]
		fa, fb, delta := dash, dash, dash
		if okA {
			fa = fmtCount(va)
		}
		if okB {
			fb = fmtCount(vb)
		}
		if d, ok := s.CounterDeltaPct[n]; ok {
			delta = fmtPct(d)
		}
		rows = append(rows, []string{n, fa, fb, delta})
	}
	if len(rows) > 0 {
		d.table([]string{"counter", s.A, s.B, "delta"}, rows)
	}
	if len(s.CountersUnsupported) > 0 {
		var un []string
		for n := range s.CountersUnsupported {
			un = append(un, n)
		}
		sortCounters(un)
		items := make([]string, len(un))
		for i, n := range un {
			items[i] = n + ": not supported: " + s.CountersUnsupported[n]
		}
		d.p("Not measured on this host:")
		d.list(items...)
	}
}

// tailSections are shared by races and matrices: warnings, the command, the environment.
func tailSections(d *document, warnings, command []string, manifest map[string]any) {
	if len(warnings) > 0 {
		d.h2("Warnings")
		d.list(warnings...)
	}
	d.h2("Reproduce")
	if len(command) > 0 {
		d.code(shellQuote(command))
	} else {
		d.p("The session did not record its command line.")
	}
	d.h2("Environment")
	if len(manifest) > 0 {
		d.table([]string{"key", "value"}, manifestRows(manifest))
	} else {
		d.p("No manifest.json in this session.")
	}
}

// sessionDocument starts the document of a matrix, scale or sweep: the title names its kind,
// scenario and targets, and the list of its facts ends with the run times of its shape.
func sessionDocument(kind, scenario string, targets []string, sh session.Shape, facts ...string) document {
	d := document{Title: fmt.Sprintf("%s — %s: %s", kind, scenario, strings.Join(targets, ", "))}
	d.list(append(facts, fmt.Sprintf("%s per run, %s warm-up, %s cool-down", fmtSeconds(sh.DurationS), fmtSeconds(sh.WarmupS), fmtSeconds(sh.CooldownS)))...)
	return d
}

// stoppedEarly says why the session stopped before its end, if it did; more follows the reason.
func (d *document) stoppedEarly(incomplete, more string) {
	if incomplete != "" {
		d.p("The session stopped early: " + incomplete + "." + more)
	}
}

func verdictWord(v string) string {
	switch v {
	case session.Pass:
		return "passed"
	case session.Fail:
		return "failed"
	case session.Inconclusive:
		return "inconclusive"
	case session.Incomplete:
		return "session incomplete"
	}
	return "not evaluated"
}

func verdictPhrase(v string) string {
	if v == session.Incomplete {
		return "session incomplete: regression threshold not passed"
	}
	return "regression threshold " + verdictWord(v)
}

func orDash(s string) string {
	if s == "" {
		return dash
	}
	return s
}

func firstNonZero(xs ...int) int {
	for _, x := range xs {
		if x != 0 {
			return x
		}
	}
	return 0
}

// unitOf names what a race's throughput counts: HTTP responses, or WebSocket messages for ws-echo.
func unitOf(s *session.Summary) string {
	if s.Unit != "" {
		return s.Unit
	}
	return "responses/s"
}
