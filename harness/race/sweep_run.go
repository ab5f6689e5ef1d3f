package race

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
)

// measure measures the closed-loop maxima (with fractions), then every point: each target once
// at the point's rate, in the targets' order at even points and the reverse at odd ones, so
// neither always runs first. It stops at the first failed run or an interrupt (cut).
func (ss *sweepSession) measure(ctx context.Context) error {
	eng, r := ss.st.eng, ss.race
	if len(ss.o.Fractions) > 0 {
		ss.sw.ClosedLoopMax = map[string]float64{}
		for _, t := range ss.o.Targets {
			run, err := eng.closedMax(ctx, t, ss.sc, r, "")
			ss.raw = append(ss.raw, run)
			if err != nil {
				return err
			}
			ss.sw.ClosedLoopMax[t] = round2(run.RPS)
		}
	}
	n := max(len(ss.o.Rates), len(ss.o.Fractions))
	for i := 0; i < n; i++ {
		order := slices.Clone(ss.o.Targets)
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for slot, t := range order {
			p := session.SweepPoint{Point: i, Target: t}
			if len(ss.o.Rates) > 0 {
				p.Rate = ss.o.Rates[i]
			} else {
				p.Fraction = ss.o.Fractions[i]
				p.Rate = roundRate(p.Fraction * ss.sw.ClosedLoopMax[t])
			}
			label := fmt.Sprintf("point %d/%d %s at %s rps", i+1, n, t, Thousands(p.Rate))
			run, err := eng.measure(ctx, runSpec{target: t, sc: ss.sc, connections: r.Connections, pipelining: r.Pipelining, slot: slot, label: label, rate: p.Rate})
			ss.raw = append(ss.raw, run)
			p.Run = run
			ss.sw.Points = append(ss.sw.Points, p)
			if err != nil {
				eng.prog.Logf("%s: %v", label, err)
				return err
			}
			if last := i == n-1 && slot == len(order)-1; !last && !eng.cooldown(ctx, label) {
				return fmt.Errorf("%w during cooldown", ErrInterrupted)
			}
		}
	}
	return nil
}

// roundRate rounds a rate to whole requests per second (at least 1).
func roundRate(r float64) float64 { return max(1, float64(int64(r+0.5))) }

// write writes the sweep's summary.json, raw.json (with the histograms) and manifest.json,
// then its reports.
func (ss *sweepSession) write() error {
	return writeSession(ss.dir, ss.sw, session.Raw{Runs: ss.raw}, ss.st.man)
}

// print prints summary.json with JSON; else each point, the warnings and, per target, the rate
// under the SLO as the last lines on stdout.
func (ss *sweepSession) print() {
	o, sw := ss.o, &ss.sw
	if o.JSON {
		session.PrintJSON(o.Stdout, sw)
		return
	}
	for _, p := range sw.Points {
		mark := ""
		if p.Run.Open != nil && p.Run.Open.GeneratorBound {
			mark = "  GENERATOR-BOUND"
		}
		if p.Run.Error != "" {
			mark = "  failed: " + p.Run.Error
		}
		fmt.Fprintf(o.Stderr, "  %-12s %10s rps  p50 %.3f ms  p99 %.3f ms  p99.9 %.3f ms%s\n", p.Target, Thousands(p.Rate), p.Run.P50Ms, p.Run.P99Ms, p.Run.P999Ms, mark)
	}
	for _, w := range sw.Warnings {
		fmt.Fprintf(o.Stderr, "  warning: %s\n", w)
	}
	fmt.Fprintf(o.Stderr, "results: %s\n", ss.dir)
	for _, line := range SweepLines(sw) {
		fmt.Fprintln(o.Stdout, line)
	}
}

// SweepLines are a sweep's result lines: per target, the highest rate up to which p99 stayed
// under the SLO ("none" when the lowest rate crossed it), or its points without an SLO.
func SweepLines(sw *session.Sweep) []string {
	var out []string
	for _, t := range sw.PerTarget {
		switch {
		case sw.SLOMs <= 0:
			out = append(out, fmt.Sprintf("%s: %d points measured (no --slo)", t.Target, t.Points))
		case t.SLORate == nil:
			out = append(out, fmt.Sprintf("%s: p99 under %s ms at none of the rates", t.Target, strconv.FormatFloat(sw.SLOMs, 'f', -1, 64)))
		default:
			out = append(out, fmt.Sprintf("%s: p99 under %s ms up to %s requests/s", t.Target, strconv.FormatFloat(sw.SLOMs, 'f', -1, 64), Thousands(*t.SLORate)))
		}
	}
	if sw.Incomplete != "" {
		out = append(out, "sweep INCOMPLETE ("+strings.TrimSpace(sw.Incomplete)+")")
	}
	return out
}
