package report

import (
	"fmt"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
)

// sampledSection is where each side's CPU time went, kernel included: the sampled table of its
// median run (Summary.Sampled), functions by self time and the kernel's time in each system
// call.
func sampledSection(d *document, s *session.Summary) {
	if len(s.Sampled) == 0 {
		return
	}
	d.h2("Where the CPU time went (sampled)")
	d.p("perf record -e cpu-clock -g on each server's threads while its windows were open (a software clock: no PMU needed), perf itself on the client's CPUs; the table of each side's run with the median CPU time per response. Self time by function, kernel functions marked; the kernel's time inside each system call below.")
	for _, side := range []struct{ key, name string }{{"a", s.A}, {"b", s.B}} {
		sm := s.Sampled[side.key]
		if sm == nil {
			d.p(side.name + ": not sampled.")
			continue
		}
		d.strong(fmt.Sprintf("%s: %s ns per response, user %s, kernel %s (%.1f%%), %d samples of %s",
			side.name, fmtCount(sm.NsPerResponse), fmtCount(sm.UserNs), fmtCount(sm.KernelNs), sm.KernelPct, sm.Samples, fmtNs(sm.PeriodNs)))
		var rows [][]string
		for _, r := range sm.Functions {
			where := "user"
			if r.Kernel {
				where = "kernel"
			}
			rows = append(rows, []string{"`" + r.Name + "`", where, fmtCount(r.NsPerResponse), fmt.Sprintf("%.1f%%", r.SharePct)})
		}
		for _, r := range sm.Syscalls {
			rows = append(rows, []string{"in `" + r.Name + "`", "kernel, system call", fmtCount(r.NsPerResponse), fmt.Sprintf("%.1f%%", r.SharePct)})
		}
		d.table([]string{"function", "where", "ns per response", "share"}, rows)
		var acts []string
		for _, r := range sm.Activities {
			acts = append(acts, fmt.Sprintf("%s %.1f%% (%s ns)", r.Name, r.SharePct, fmtCount(r.NsPerResponse)))
		}
		if len(acts) > 0 {
			d.p("By activity: " + strings.Join(acts, ", ") + ".")
		}
	}
}

// fmtNs writes a sampling period: "1 ms", "250 µs".
func fmtNs(ns int64) string {
	switch {
	case ns%1_000_000 == 0:
		return fmt.Sprintf("%d ms", ns/1_000_000)
	case ns%1000 == 0:
		return fmt.Sprintf("%d µs", ns/1000)
	}
	return fmt.Sprintf("%d ns", ns)
}
