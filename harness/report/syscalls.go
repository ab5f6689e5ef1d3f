package report

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
)

// syscallsSection is both sides' paced system calls per response: the total, the context
// switches and every call either side made.
func syscallsSection(d *document, s *session.Summary) {
	sy := s.Syscalls
	if sy == nil {
		return
	}
	d.h2("System calls per response (paced)")
	if sy.Unsupported != "" {
		d.p("Not counted: " + sy.Unsupported + ".")
		return
	}
	d.p(fmt.Sprintf("The server's system calls over %d requests on one connection in batches of %d, each batch meeting an idle server (the paced client of the cachegrind counts), so the protocol fixes them; median of %d fresh servers per side, kernel %s, counted by tracepoints.",
		sy.N, sy.Pipelining, sy.Reps, sy.Kernel))
	a, b := sy.PerResponse["a"], sy.PerResponse["b"]
	rows := [][]string{syscallRow("system calls", a["syscalls"], b["syscalls"]), syscallRow("context switches", a["context-switches"], b["context-switches"])}
	var calls []string
	for _, m := range []map[string]float64{a, b} {
		for k := range m {
			if name, ok := strings.CutPrefix(k, "syscall:"); ok && !slices.Contains(calls, name) {
				calls = append(calls, name)
			}
		}
	}
	// By both sides' calls, most first; ties by name, so a saved session renders the same
	// every time (the calls come from maps).
	sort.Slice(calls, func(i, j int) bool {
		ti, tj := a["syscall:"+calls[i]]+b["syscall:"+calls[i]], a["syscall:"+calls[j]]+b["syscall:"+calls[j]]
		return ti > tj || ti == tj && calls[i] < calls[j]
	})
	for _, c := range calls {
		rows = append(rows, syscallRow("`"+c+"`", a["syscall:"+c], b["syscall:"+c]))
	}
	d.table([]string{"per response", s.A, s.B, "delta"}, rows)
}

func syscallRow(name string, a, b float64) []string {
	delta := dash
	if b > 0 {
		delta = fmtPct((a - b) / b * 100)
	}
	return []string{name, fmtCount(a), fmtCount(b), delta}
}
