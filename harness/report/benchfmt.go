package report

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// writeBenchfmt writes the session in the Go benchmark format, one line per valid run, so that
// `benchstat old.txt new.txt` compares two sessions run by run:
//
//	BenchmarkRace/target=binding/scenario=ping 4842130 2065 ns/op 484213 rps 3.6 p95-ms 4.05 p99-ms ...
//
// Choices, because benchstat interprets units:
//   - The iteration count is the run's response count (what was measured), and ns/op is wall
//     time per response, 1e9/rps: benchstat tidies it to sec/op, where lower is better, so its
//     usual reading is right.
//   - "rps" is also given because that is the figure people quote. "Unit rps better=higher" says
//     its direction; benchstat at the pinned version reads this metadata but prints changes
//     without judging them, so a +% on rps is good and a +% on everything else is bad.
//   - Latencies use "-ms" units ("p99-ms"): benchstat only rescales "ns" and "MB", so the values
//     stay in milliseconds as the report prints them. Memory is in bytes ("rss-B"), which
//     benchstat scales to KiB/MiB itself.
//   - Counters are "<name>/op" per response, e.g. "instructions/op". Cachegrind counts are
//     deterministic, so they are marked "assume=exact" and benchstat needs no repeats.
//   - Config is only goos, goarch, pkg and cpu: benchstat splits tables by every config key, and
//     session-specific keys (times, seeds) would keep two sessions from ever being compared.
//     Sessions from different CPUs land in separate tables; `benchstat -ignore cpu` joins them.
//
// Failed runs are left out (a zero rps has no ns/op); a comment line names them.
func writeBenchfmt(w io.Writer, sd *sessionDir) error {
	var b strings.Builder
	goos := orDefault(manifestValue(sd.manifest, func(k string) bool { return k == "goos" || k == "os" }), runtime.GOOS)
	goarch := orDefault(manifestValue(sd.manifest, func(k string) bool { return k == "goarch" || k == "arch" }), runtime.GOARCH)
	cpu := manifestValue(sd.manifest, func(k string) bool {
		return k == "cpu" || k == "cpu_model" || strings.HasSuffix(k, ".cpu_model") || strings.HasSuffix(k, "cpu.model") || k == "cpu.model_name"
	})
	fmt.Fprintf(&b, "goos: %s\ngoarch: %s\npkg: bindrace\n", oneLine(goos), oneLine(goarch))
	if cpu != "" {
		fmt.Fprintf(&b, "cpu: %s\n", oneLine(cpu))
	}
	b.WriteString("Unit rps better=higher\nUnit responses/cpu-sec better=higher\n")

	var runs []session.Run
	var counters map[string]map[string]float64
	var mode, a, bName string
	switch {
	case sd.matrix != nil:
		runs = sd.matrix.Runs
	case sd.scale != nil:
		runs = scaleRuns(sd.scale)
	default:
		s := sd.race
		for _, p := range s.Pairs {
			runs = append(runs, p.A, p.B)
		}
		counters, mode, a, bName = s.Counters, s.CountersMode, s.A, s.B
	}

	perRunCounters := false
	for _, r := range runs {
		if !stats.RunValid(r) {
			fmt.Fprintf(&b, "# left out a failed run of %s (%s)\n", benchName(r.Target), strings.ReplaceAll(oneLine(r.Error), ":", ";"))
			continue
		}
		writeRun(&b, r)
		if len(r.Counters) > 0 {
			perRunCounters = true
		}
	}

	// Counters measured in a separate run (cachegrind, or perf with its own window) are not per
	// run: one line per side under its own name, so they never mix with the throughput lines.
	if !perRunCounters && len(counters) > 0 {
		if mode == "cachegrind" {
			for _, n := range sortedKeys(counters["a"], counters["b"]) {
				fmt.Fprintf(&b, "Unit %s/op assume=exact\n", benchName(n))
			}
		}
		scenario := sd.race.Scenario
		for _, side := range []struct{ key, target string }{{"a", a}, {"b", bName}} {
			c := counters[side.key]
			if len(c) == 0 {
				continue
			}
			fmt.Fprintf(&b, "BenchmarkRace/target=%s/scenario=%s/counters=%s 1", benchName(side.target), benchName(scenario), benchName(orDefault(mode, "perf")))
			for _, n := range sortedKeys(c) {
				fmt.Fprintf(&b, " %g %s/op", c[n], benchName(n))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeRun(b *strings.Builder, r session.Run) {
	n := r.Responses
	if n <= 0 {
		n = 1
	}
	fmt.Fprintf(b, "BenchmarkRace/target=%s/scenario=%s %d %g ns/op %g rps", benchName(r.Target), benchName(r.Scenario), n, 1e9/r.RPS, r.RPS)
	for _, v := range []struct {
		x    float64
		unit string
	}{
		{r.P50Ms, "p50-ms"}, {r.P95Ms, "p95-ms"}, {r.P99Ms, "p99-ms"}, {r.P999Ms, "p99.9-ms"}, {r.MaxMs, "max-ms"},
		{r.ServerCPUPct, "server-cpu-%"}, {r.RPSPerCPUSecond, "responses/cpu-sec"},
		{r.RSSMiB * 1024 * 1024, "rss-B"}, {r.PeakRSSMiB * 1024 * 1024, "peak-rss-B"}, {r.HeapMiB * 1024 * 1024, "heap-B"},
		{r.StartupMs, "startup-ms"},
	} {
		// Unreported figures (0) are left out rather than written as a measured zero.
		if v.x != 0 {
			fmt.Fprintf(b, " %g %s", v.x, v.unit)
		}
	}
	fmt.Fprintf(b, " %d errors", r.Errors)
	for _, k := range sortedKeys(r.Counters) {
		fmt.Fprintf(b, " %g %s/op", r.Counters[k], benchName(k))
	}
	b.WriteString("\n")
}

// benchName makes a value safe inside a benchmark name or unit: no spaces (they end the name),
// no slashes (they separate sub-benchmarks). "cmd:./server --port {port}" stays recognisable.
func benchName(s string) string {
	if s == "" {
		return "none"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == ' ' || r == '\t' || r == '\n' || r == '\r':
			return '_'
		}
		return r
	}, s)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func sortedKeys(ms ...map[string]float64) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range ms {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sortCounters(keys)
	return keys
}
