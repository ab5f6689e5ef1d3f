package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
)

// matrixDocument reports N targets over shuffled rounds: the per-target table, the seed and
// orders that make it reproducible, the slot correlation that says whether position mattered,
// and every run.
func matrixDocument(sd *sessionDir) document {
	m := sd.matrix
	sh := m.Shape
	rounds := firstNonZero(sh.Rounds, len(m.Orders))
	d := sessionDocument("Matrix", m.Scenario, m.Targets, sh,
		fmt.Sprintf("%d targets × %d rounds, %d runs, order seed %d", len(m.Targets), rounds, len(m.Runs), m.Seed),
		fmt.Sprintf("%d connections, pipelining %d", sh.Connections, sh.Pipelining))
	d.stoppedEarly(m.Incomplete, "")

	d.h2("Per target")
	var rows [][]string
	for _, t := range m.PerTarget {
		rows = append(rows, []string{t.Target, fmtRPS(t.MedianRPS), fmtRPS(t.MeanRPS), fmtRPS(t.StddevRPS), fmtPlainPct(t.CVPct),
			fmtRPS(t.MinRPS), fmtRPS(t.MaxRPS), fmtMs(t.MedianP99Ms), fmt.Sprint(t.Errors)})
	}
	d.table([]string{"target", "median rps", "mean rps", "stddev", "CV", "min", "max", "p99 (median)", "errors"}, rows)

	d.h2("Position bias")
	d.p(fmt.Sprintf("Slot correlation r = %+.2f: %s", m.SlotCorrelation, slotReading(m.SlotCorrelation)))
	d.p("Each run's throughput is divided by its target's mean, then correlated (Pearson) with its slot in the round.")

	d.h2(fmt.Sprintf("Orders (seed %d)", m.Seed))
	var orders []string
	for i, o := range m.Orders {
		orders = append(orders, fmt.Sprintf("round %d: %s", i+1, strings.Join(o, ", ")))
	}
	if len(orders) > 0 {
		d.list(orders...)
	}

	d.h2(fmt.Sprintf("All %d runs, no selection.", len(m.Runs)))
	rows = nil
	for i, r := range m.Runs {
		status := "ok"
		if r.Error != "" {
			status = "failed: " + r.Error
		}
		rows = append(rows, []string{fmt.Sprint(matrixRound(m, i) + 1), fmt.Sprint(r.Slot + 1), r.Target, fmtRPS(r.RPS),
			fmtMs(r.P99Ms), fmtPlainPct(r.ServerCPUPct), status})
	}
	d.table([]string{"round", "slot", "target", "rps", "p99", "server CPU", "status"}, rows)

	tailSections(&d, m.Warnings, sh.Command, sd.manifest)
	return d
}

// matrixRound is the round of the i-th run: runs are stored in measured order, one per target
// per round.
func matrixRound(m *session.Matrix, i int) int {
	if len(m.Targets) == 0 {
		return 0
	}
	return i / len(m.Targets)
}

// slotReading interprets r. The cut-offs are conventions, not tests: with tens of runs |r| below
// 0.1 is indistinguishable from noise (seed 000 saw +0.09 after fixing its bias).
func slotReading(r float64) string {
	dir := "later slots ran faster (warming up)"
	if r < 0 {
		dir = "later slots ran slower (heat or throttling)"
	}
	switch a := math.Abs(r); {
	case a < 0.1:
		return "no meaningful position bias."
	case a < 0.3:
		return "weak position bias: " + dir + "; shuffled orders spread it over all targets."
	default:
		return "strong position bias: " + dir + "; compare targets with care and check cool-down and thermals."
	}
}
