package report

import (
	"fmt"

	"github.com/bindrace/bindrace/harness/session"
)

// latencySection shows how an open-loop race chose its rate, and each side's latency two ways,
// labelled apart: the median of the runs' percentiles (what the gate compares, pair by pair)
// and the percentiles of all requests of the side, their histograms merged (for reading).
func latencySection(d *document, s *session.Summary) {
	if s.Rate == nil && s.MergedA == nil && s.MergedB == nil {
		return
	}
	d.h2("Latency")
	if r := s.Rate; r != nil {
		txt := fmt.Sprintf("Open loop: both sides were offered %s requests/s in all; each request's latency counts from its intended send time, so a stalling server cannot hide it. Throughput is fixed by the rate and not gated; the gate compares the paired per-run p50 and p99.", fmtRPS(r.RPS))
		if r.Fraction > 0 {
			txt += fmt.Sprintf(" The rate is %s of the LOWER of the two closed-loop maxima measured in this session at the same pipelining (%s %s, %s %s), so neither side is asked for more than the slower one serves at that fraction.",
				fmtPlainPct(r.Fraction*100), s.A, fmtRPS(r.MaxA), s.B, fmtRPS(r.MaxB))
		}
		d.p(txt)
	}
	med := func(key string, a bool) string {
		f, ok := s.Runtime[key]
		v := f.B
		if a {
			v = f.A
		}
		if !ok || v == nil {
			return "–"
		}
		return fmtMs(*v)
	}
	merged := func(m *session.Merged, get func(*session.Merged) float64) string {
		if m == nil {
			return "–"
		}
		return fmtMs(get(m))
	}
	rows := [][]string{}
	for _, q := range []struct {
		name, key string
		get       func(*session.Merged) float64
	}{
		{"p50", "p50_ms", func(m *session.Merged) float64 { return m.P50Ms }},
		{"p90", "", func(m *session.Merged) float64 { return m.P90Ms }},
		{"p99", "p99_ms", func(m *session.Merged) float64 { return m.P99Ms }},
		{"p99.9", "p999_ms", func(m *session.Merged) float64 { return m.P999Ms }},
		{"max", "", func(m *session.Merged) float64 { return m.MaxMs }},
	} {
		rows = append(rows, []string{q.name, med(q.key, true), merged(s.MergedA, q.get), med(q.key, false), merged(s.MergedB, q.get)})
	}
	d.table([]string{"percentile", s.A + ", median of runs", s.A + ", all requests, merged", s.B + ", median of runs", s.B + ", all requests, merged"}, rows)
	d.p(fmt.Sprintf("\"Median of runs\" is the median over the runs of each run's own percentile: what the gate compares, pair by pair. \"All requests, merged\" is the percentile of every request of the side at once (%s and %s requests), from the runs' histograms merged: for reading, not for the verdict.",
		group(float64(requestsOf(s.MergedA)), 0), group(float64(requestsOf(s.MergedB)), 0)))
}

func requestsOf(m *session.Merged) int64 {
	if m == nil {
		return 0
	}
	return m.Requests
}
