package report

import (
	"fmt"
	"strconv"

	"github.com/bindrace/bindrace/harness/session"
)

// sweepDocument reports a sweep: per target, the highest rate whose p99 stayed under the SLO,
// then the latency at every rate (generator-bound points marked), the closed-loop maxima the
// fractions were taken of, and how to reproduce it.
func sweepDocument(sd *sessionDir) document {
	sw := sd.sweep
	sh := sw.Shape
	d := sessionDocument("Sweep", sw.Scenario, sw.Targets, sh,
		fmt.Sprintf("%d targets × %d rates, one open-loop run each, the targets' order alternating from one rate to the next", len(sw.Targets), max(len(sw.Rates), len(sw.Fractions))),
		fmt.Sprintf("%d connections, pipelining %d", sh.Connections, sh.Pipelining))
	d.stoppedEarly(sw.Incomplete, "")
	if sw.SLOMs > 0 {
		slo := strconv.FormatFloat(sw.SLOMs, 'f', -1, 64) + " ms"
		d.h2("Highest rate with p99 under " + slo)
		var rows [][]string
		for _, t := range sw.PerTarget {
			rate := "none"
			if t.SLORate != nil {
				rate = fmtRPS(*t.SLORate) + " requests/s"
			}
			rows = append(rows, []string{t.Target, rate, fmt.Sprintf("%d (%d generator-bound)", t.Points, t.GeneratorBound)})
		}
		d.table([]string{"target", "highest rate with p99 ≤ " + slo, "points measured"}, rows)
		d.p("The rate is the last one, going up, before the first whose p99 crossed the SLO. Generator-bound points neither set nor end it: their latency measures the load generator as much as the server.")
	}
	d.h2("Latency at each rate")
	d.table([]string{"target", "rate asked", "of max", "rate achieved", "p50", "p99", "p99.9", "send lag p99", "status"}, sweepRows(sw))
	if len(sw.ClosedLoopMax) > 0 {
		var items []string
		for _, t := range sw.Targets {
			items = append(items, fmt.Sprintf("%s: %s requests/s", t, fmtRPS(sw.ClosedLoopMax[t])))
		}
		d.p("The fractions are of each target's own closed-loop maximum, measured in this session at the same connections and pipelining:")
		d.list(items...)
	}
	tailSections(&d, sw.Warnings, sh.Command, sd.manifest)
	return d
}

// sweepRows is one row per point, as measured.
func sweepRows(sw *session.Sweep) [][]string {
	var rows [][]string
	for _, p := range sw.Points {
		r := p.Run
		frac, achieved, lag, status := "–", "–", "–", "ok"
		if p.Fraction > 0 {
			frac = fmtPlainPct(p.Fraction * 100)
		}
		if o := r.Open; o != nil {
			achieved, lag = fmtRPS(o.SentRPS), fmtMs(o.LagP99Ms)
			if o.GeneratorBound {
				status = "GENERATOR-BOUND"
			}
		}
		if r.Error != "" {
			status = "failed: " + r.Error
		}
		rows = append(rows, []string{p.Target, fmtRPS(p.Rate), frac, achieved, fmtMs(r.P50Ms), fmtMs(r.P99Ms), fmtMs(r.P999Ms), lag, status})
	}
	return rows
}
