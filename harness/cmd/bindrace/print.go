package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/bindrace/bindrace/harness/kinds"
	"github.com/bindrace/bindrace/harness/session"
)

// finish ends every session command the same way: the session's record printed (record as
// JSON with --json, else by print), then each problem that kept it from being whole (a file
// not written, why it stopped early) on stderr with exit status 2; without one, code.
func finish(cmd string, asJSON bool, record any, print func(), code int, stdout, stderr io.Writer, problems ...error) int {
	if asJSON {
		session.PrintJSON(stdout, record)
	} else {
		print()
	}
	for _, p := range problems {
		if p != nil {
			fmt.Fprintf(stderr, "bindrace %s: %s\n", cmd, flagWords(p))
			code = 2
		}
	}
	return code
}

// incomplete is why a session stopped early, as a problem for finish (nil: it did not).
func incomplete(why string) error {
	if why == "" {
		return nil
	}
	return errors.New("incomplete: " + why)
}

// printWarnings prints a session's warnings, indented, on stderr.
func printWarnings(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "  warning: %s\n", w)
	}
}

// printMatrix prints each target's figures and the headline.
func printMatrix(res kinds.Result[session.Matrix], stdout, stderr io.Writer) {
	m := res.Summary
	for _, t := range m.PerTarget {
		fmt.Fprintf(stderr, "  %-16s median %s %s  CV %.1f%%  p99 %.2f ms  server CPU %.0f%%\n", t.Target, thousands(t.MedianRPS), unitText(m.Unit), t.CVPct, t.MedianP99Ms, t.MedianCPUPct)
	}
	printWarnings(stderr, m.Warnings)
	fmt.Fprintf(stderr, "results: %s\n", res.Dir)
	fmt.Fprintln(stdout, matrixHeadline(m))
}

func matrixHeadline(m *session.Matrix) string {
	var parts []string
	for _, t := range m.PerTarget {
		parts = append(parts, fmt.Sprintf("%s %s %s", t.Target, thousands(t.MedianRPS), unitText(m.Unit)))
	}
	line := fmt.Sprintf("matrix %s: %s; slot correlation %+.2f (seed %d)", m.Scenario, strings.Join(parts, ", "), m.SlotCorrelation, m.Seed)
	if m.Incomplete != "" {
		line += "; INCOMPLETE (" + m.Incomplete + ")"
	}
	return line
}

// unitText is a session's Unit as the terminal prints it: "rps" for HTTP responses/s.
func unitText(unit string) string {
	if unit == "" {
		return "rps"
	}
	return unit
}

// printScale prints one line per point and the results directory.
func printScale(res kinds.Result[session.Scale], stdout, stderr io.Writer) {
	s := res.Summary
	for _, p := range s.Points {
		fmt.Fprintf(stdout, "%-14s threads %2d  %s %s  %s per server CPU-s  efficiency %.0f%%  server CPU %.0f%%  client CPU %.0f%%%s\n",
			p.Target, p.Threads, thousands(p.RPS), unitText(s.Unit), thousands(p.RPSPerCPUSecond), p.EfficiencyPct, p.ServerCPUPct, p.ClientCPUPct, pointMarks(p))
	}
	printWarnings(stderr, s.Warnings)
	if s.Incomplete != "" {
		fmt.Fprintf(stdout, "scale INCOMPLETE: %s\n", s.Incomplete)
	}
	fmt.Fprintf(stderr, "results: %s\n", res.Dir)
}

// pointMarks are a point's marks as the terminal shows them.
func pointMarks(p session.ScalePoint) string {
	var m []string
	if p.ClientBound {
		m = append(m, "client-bound")
	}
	if p.SharedCPUs {
		m = append(m, "shares client CPUs")
	}
	if p.Runs == 0 {
		m = append(m, "no valid run")
	}
	if len(m) == 0 {
		return ""
	}
	return "  [" + strings.Join(m, ", ") + "]"
}

// printSweep prints each point, the warnings and, per target, the
// rate under the SLO as the last lines on stdout.
func printSweep(res kinds.Result[session.Sweep], stdout, stderr io.Writer) {
	sw := res.Summary
	for _, p := range sw.Points {
		mark := ""
		if p.Run.Open != nil && p.Run.Open.GeneratorBound {
			mark = "  GENERATOR-BOUND"
		}
		if p.Run.Error != "" {
			mark = "  failed: " + p.Run.Error
		}
		fmt.Fprintf(stderr, "  %-12s %10s rps  p50 %.3f ms  p99 %.3f ms  p99.9 %.3f ms%s\n", p.Target, thousands(p.Rate), p.Run.P50Ms, p.Run.P99Ms, p.Run.P999Ms, mark)
	}
	printWarnings(stderr, sw.Warnings)
	fmt.Fprintf(stderr, "results: %s\n", res.Dir)
	for _, line := range sweepLines(sw) {
		fmt.Fprintln(stdout, line)
	}
}

// sweepLines are a sweep's result lines: per target, the highest rate up to which p99 stayed
// under the SLO ("none" when the lowest rate crossed it), or its points without an SLO.
func sweepLines(sw *session.Sweep) []string {
	var out []string
	for _, t := range sw.PerTarget {
		switch {
		case sw.SLOMs <= 0:
			out = append(out, fmt.Sprintf("%s: %d points measured (no --slo)", t.Target, t.Points))
		case t.SLORate == nil:
			out = append(out, fmt.Sprintf("%s: p99 under %s ms at none of the rates", t.Target, strconv.FormatFloat(sw.SLOMs, 'f', -1, 64)))
		default:
			out = append(out, fmt.Sprintf("%s: p99 under %s ms up to %s requests/s", t.Target, strconv.FormatFloat(sw.SLOMs, 'f', -1, 64), thousands(*t.SLORate)))
		}
	}
	if sw.Incomplete != "" {
		out = append(out, "sweep INCOMPLETE ("+strings.TrimSpace(sw.Incomplete)+")")
	}
	return out
}
