package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
)

// scaleDocument reports a scale session: the points' table (throughput, per server
// CPU-second, speed-up and efficiency, both sides' CPU, the marks), a text chart of the
// curves, and every run.
func scaleDocument(sd *sessionDir) document {
	s := sd.scale
	sh := s.Shape
	d := sessionDocument("Scale", s.Scenario, s.Targets, sh,
		fmt.Sprintf("threads %s × %d target(s) × %d round(s), %d runs", joinInts(s.Threads), len(s.Targets), s.Rounds, len(s.Runs)),
		fmt.Sprintf("efficiency against %d thread(s): (rps ÷ threads) ÷ (base rps ÷ base threads)", s.BaseThreads),
		fmt.Sprintf("%d connections, pipelining %d, %d client worker(s) on CPUs %q", sh.Connections, sh.Pipelining, sh.Workers, sh.CPUsClient))
	d.stoppedEarly(s.Incomplete, " The points below hold what was measured.")
	unit := "rps"
	if s.Unit != "" {
		unit = s.Unit
	}
	d.h2("Scaling")
	var rows [][]string
	for _, p := range s.Points {
		rows = append(rows, []string{p.Target, fmt.Sprint(p.Threads), p.CPUsServer, fmtRPS(p.RPS), fmtRPS(p.RPSPerCPUSecond),
			speedUp(p.SpeedUp), fmtPlainPct(p.EfficiencyPct), fmtPlainPct(p.ServerCPUPct), fmtPlainPct(p.ClientCPUPct),
			fmtMs(p.P99Ms), marks(p)})
	}
	d.table([]string{"target", "threads", "server CPUs", unit, "per server CPU-s", "speed-up", "efficiency",
		"server CPU", "client CPU", "p99", "marks"}, rows)
	d.p("client-bound: the load generator used 90% or more of its cores, so the point may measure the client. " +
		"shares client CPUs: the server ran on CPUs the load generator used. server unsaturated: the server used under 90% of its threads' cores.")
	d.h2("Curves (" + unit + ")")
	d.text(scaleChart(s))
	d.h2(fmt.Sprintf("All %d runs, no selection.", len(s.Runs)))
	rows = nil
	for _, r := range s.Runs {
		status := "ok"
		if r.Error != "" {
			status = "failed: " + r.Error
		}
		rows = append(rows, []string{fmt.Sprint(r.ServerThreads), fmt.Sprint(r.Round + 1), fmt.Sprint(r.Slot + 1), r.Target,
			fmtRPS(r.RPS), fmtRPS(r.RPSPerCPUSecond), fmtPlainPct(r.ServerCPUPct), fmtPlainPct(r.ClientCPUPct), fmtMs(r.P99Ms), status})
	}
	d.table([]string{"threads", "round", "slot", "target", unit, "per server CPU-s", "server CPU", "client CPU", "p99", "status"}, rows)
	tailSections(&d, s.Warnings, sh.Command, sd.manifest)
	return d
}

func speedUp(x float64) string {
	if missing(x) {
		return "—"
	}
	return fmt.Sprintf("%.2f×", x)
}

func marks(p session.ScalePoint) string {
	var m []string
	if p.Runs == 0 {
		m = append(m, "no valid run")
	}
	if p.ClientBound {
		m = append(m, "client-bound")
	}
	if p.SharedCPUs {
		m = append(m, "shares client CPUs")
	}
	if p.ServerUnsaturated && p.Runs > 0 {
		m = append(m, "server unsaturated")
	}
	return strings.Join(m, ", ")
}

// scaleChart draws each point's throughput as a bar of up to 40 characters, scaled to the
// session's best point; a marked point carries its marks after the figure.
func scaleChart(s *session.Scale) string {
	best := 0.0
	width := 0
	for _, p := range s.Points {
		best = math.Max(best, p.RPS)
		width = max(width, len(p.Target))
	}
	var b strings.Builder
	for _, p := range s.Points {
		n := 0
		if best > 0 {
			n = int(math.Round(p.RPS / best * 40))
		}
		fmt.Fprintf(&b, "%-*s %3dt |%-40s %s", width, p.Target, p.Threads, strings.Repeat("#", n), fmtRPS(p.RPS))
		if m := marks(p); m != "" {
			b.WriteString("  (" + m + ")")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ",")
}

// scaleRuns are a scale's runs for the benchmark format, the thread count in the target's
// name so benchstat keeps the points apart.
func scaleRuns(s *session.Scale) []session.Run {
	out := make([]session.Run, len(s.Runs))
	for i, r := range s.Runs {
		out[i] = r.Run
		out[i].Target = fmt.Sprintf("%s-threads%d", r.Target, r.ServerThreads)
	}
	return out
}
