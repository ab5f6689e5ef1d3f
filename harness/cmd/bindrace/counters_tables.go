package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/kinds"
)

// maxNameWidth cuts long (C++) names in the text tables; --json carries them whole.
const maxNameWidth = 110

// writeTotals prints the counters table: per response and over the window, a total under the
// resolution as such (never a number), estimated cycles with their label.
func writeTotals(w io.Writer, r *kinds.CountersReport) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "counter\ttotal\tper response\t")
	keys := map[string]bool{}
	for k := range r.PerResponse {
		keys[k] = true
	}
	for k := range r.UnderResolution {
		keys[k] = true
	}
	for _, k := range counters.Order(keys) {
		if res, under := r.UnderResolution[k]; under {
			fmt.Fprintf(tw, "%s\t-\tunder the resolution (< %s)\t\n", k, counters.FormatCount(res))
			continue
		}
		total := "-"
		if v, ok := r.Totals[k]; ok {
			total = counters.FormatCount(v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", k, total, counters.FormatCount(r.PerResponse[k]))
	}
	for k, v := range r.Estimated {
		fmt.Fprintf(tw, "%s*\t-\t%s\t\n", k, counters.FormatCount(v))
	}
	tw.Flush()
	for k := range r.Estimated {
		fmt.Fprintf(w, "* %s: %s, %s\n", k, counters.EstimatedLabel, counters.EstimatedFormula)
	}
}

// writeBreakdown prints the top k rows of a cachegrind breakdown, what the rest add up to, and
// the rows under the resolution as one line.
func writeBreakdown(w io.Writer, b *counters.Breakdown, k int) {
	if b == nil || k <= 0 {
		return
	}
	what := map[counters.View]string{counters.ByFunction: "function", counters.ByFile: "source file"}[b.View]
	top := b.Top(k)
	fmt.Fprintf(w, "\nper response by %s: top %d of %d above the resolution (each row's own slope, (count(2N) - count(N)) / N)\n",
		what, len(top), len(b.Rows))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "instructions\tshare\tbranches\tmispredicts\td1-misses\tll-misses\testimated-cycles*\t"+what+"\n")
	for _, row := range top {
		fmt.Fprintf(tw, "%s\t%.1f%%\t%s\t%s\n", cell(row.PerResponse, counters.Instructions), row.SharePct,
			cells(row.PerResponse), cut(row.Name))
	}
	if rest := b.Rows[len(top):]; len(rest) > 0 {
		ins, share := 0.0, 0.0
		for _, row := range rest {
			ins += row.PerResponse[counters.Instructions]
			share += row.SharePct
		}
		fmt.Fprintf(tw, "%s\t%.1f%%\t\t\t\t\t\t(%d more above the resolution)\n", counters.FormatCount(ins), share, len(rest))
	}
	if b.Under.Rows > 0 {
		fmt.Fprintf(tw, "%s\t\t%s\t(%d %ss each under the resolution, together)\n", cell(b.Under.PerResponse, counters.Instructions),
			cells(b.Under.PerResponse), b.Under.Rows, what)
	}
	tw.Flush()
	fmt.Fprintf(w, "resolution of one row: instructions %s, branches %s, mispredicts %s, d1-misses %s, ll-misses %s per response (\"·\": under it)\n",
		counters.FormatCount(b.Resolution[counters.Instructions]), counters.FormatCount(b.Resolution[counters.Branches]),
		counters.FormatCount(b.Resolution[counters.BranchMispredicts]), counters.FormatCount(b.Resolution[counters.D1Misses]),
		counters.FormatCount(b.Resolution[counters.LLMisses]))
	fmt.Fprintf(w, "* estimated-cycles: %s, %s\n", counters.EstimatedLabel, counters.EstimatedFormula)
	for _, n := range b.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// cells renders a row's counters after instructions, tab-separated.
func cells(m map[string]float64) string {
	s := ""
	for i, c := range counters.BreakdownCounters[1:] {
		if i > 0 {
			s += "\t"
		}
		s += cell(m, c)
	}
	return s
}

// cell is one counter of a row: its figure, or "·" where it is under the resolution.
func cell(m map[string]float64, c string) string {
	if v, ok := m[c]; ok {
		return counters.FormatCount(v)
	}
	return "·"
}

func cut(name string) string {
	r := []rune(name)
	if len(r) <= maxNameWidth {
		return name
	}
	return string(r[:maxNameWidth-1]) + "…"
}

// writeSyscalls prints syscalls mode's table.
func writeSyscalls(w io.Writer, t *counters.SyscallTable) {
	if t == nil {
		return
	}
	if t.Unsupported != "" {
		fmt.Fprintf(w, "\nsystem calls: not counted: %s\n", t.Unsupported)
		return
	}
	fmt.Fprintf(w, "\nsystem calls per response: %s (context switches %s); sends %s, recvs %s",
		counters.FormatCount(t.PerResponse), counters.FormatCount(t.ContextSwitches),
		counters.FormatCount(t.SendsPerResponse), counters.FormatCount(t.RecvsPerResponse))
	if t.BytesPerSend > 0 || t.BytesPerRecv > 0 {
		fmt.Fprintf(w, "; bytes per send %s, per recv %s", counters.FormatCount(t.BytesPerSend), counters.FormatCount(t.BytesPerRecv))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "per response\tshare\tsystem call")
	for _, r := range t.BySyscall {
		fmt.Fprintf(tw, "%s\t%.1f%%\t%s\n", counters.FormatCount(r.PerResponse), r.SharePct, r.Name)
	}
	tw.Flush()
	for _, n := range t.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// writeSample prints perf --sample's tables: the top k functions by self time, the system
// calls and the activities.
func writeSample(w io.Writer, t *counters.SampleTable, k int) {
	if t == nil {
		return
	}
	how := "perf record -e cpu-clock -g"
	if t.PeriodNs > 0 {
		how += fmt.Sprintf(", a sample every %s of a thread's CPU time, %.3f s window", time.Duration(t.PeriodNs), t.WindowS)
	}
	fmt.Fprintf(w, "\nsampled CPU time (%s; %d samples on %d threads): %s ns per response, user %s, kernel %s (%.1f%%)\n",
		how, t.Samples, t.Threads, counters.FormatCount(t.NsPerResponse),
		counters.FormatCount(t.UserNs), counters.FormatCount(t.KernelNs), t.KernelPct)
	rows := t.Functions
	if k > 0 && k < len(rows) {
		rows = rows[:k]
	}
	writeSampleRows(w, "function (self time)", rows, true)
	fmt.Fprintf(w, "(%d more functions above %.1f%% of the samples; %d under it, together %s ns)\n",
		len(t.Functions)-len(rows), counters.SampleFloorPct, t.Rest.Rows, counters.FormatCount(t.Rest.NsPerResponse))
	writeSampleRows(w, "system call (kernel time inside it)", t.Syscalls, false)
	writeSampleRows(w, "activity (first frame of the stack that names one)", t.Activities, false)
}

func writeSampleRows(w io.Writer, what string, rows []counters.SampleRow, space bool) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "ns/response\tshare\t"
	if space {
		head += "space\t"
	}
	fmt.Fprintln(tw, head+what)
	for _, r := range rows {
		line := fmt.Sprintf("%s\t%.1f%%\t", counters.FormatCount(r.NsPerResponse), r.SharePct)
		if space {
			line += map[bool]string{true: "kernel", false: "user"}[r.Kernel] + "\t"
		}
		fmt.Fprintln(tw, line+cut(r.Name))
	}
	tw.Flush()
}
