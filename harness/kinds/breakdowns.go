package kinds

import (
	"slices"
	"sort"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// sideBreakdowns is one side's per-function and per-file instructions per response over its
// cachegrind repetitions (one Breakdown pair per repetition).
func sideBreakdowns(fns, files []*counters.Breakdown) *session.Breakdowns {
	if len(fns) == 0 || fns[0] == nil {
		return nil
	}
	b := &session.Breakdowns{Functions: medianBreakdown(fns)}
	if len(files) > 0 && files[0] != nil {
		b.Files = medianBreakdown(files)
	}
	return b
}

// medianBreakdown is each row's median slope over the repetitions (a repetition without the
// row counts it 0), with the widest of their resolutions: the rows whose median reaches it are
// listed (at most session.MaxBreakdownRows, most first), every other row counted in UnderSum.
func medianBreakdown(reps []*counters.Breakdown) *session.Breakdown {
	values := map[string][]float64{}
	noSym := map[string]bool{}
	out := &session.Breakdown{}
	for i, r := range reps {
		out.Resolution = max(out.Resolution, r.Resolution[counters.Instructions])
		out.TotalResolution = max(out.TotalResolution, r.SumRes[counters.Instructions])
		for _, s := range r.Slopes() {
			vs := values[s.Name]
			for len(vs) < i { // absent from the earlier repetitions
				vs = append(vs, 0)
			}
			values[s.Name] = append(vs, s.Values[counters.Instructions])
			noSym[s.Name] = noSym[s.Name] || s.NoSymbol
		}
		for _, n := range r.Notes {
			if !slices.Contains(out.Notes, n) {
				out.Notes = append(out.Notes, n)
			}
		}
	}
	var rows []session.BreakdownRow
	for name, vs := range values {
		for len(vs) < len(reps) {
			vs = append(vs, 0)
		}
		m := stats.Median(vs)
		if m >= out.Resolution {
			rows = append(rows, session.BreakdownRow{Name: name, Instructions: round.Readable(m), NoSymbol: noSym[name]})
			continue
		}
		out.UnderRows++
		out.UnderSum += m
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Instructions != rows[j].Instructions {
			return rows[i].Instructions > rows[j].Instructions
		}
		return rows[i].Name < rows[j].Name
	})
	if len(rows) > session.MaxBreakdownRows {
		for _, r := range rows[session.MaxBreakdownRows:] {
			out.UnderRows++
			out.UnderSum += r.Instructions
		}
		rows = rows[:session.MaxBreakdownRows]
	}
	out.Rows = rows
	out.UnderSum = round.Readable(out.UnderSum)
	out.Resolution, out.TotalResolution = round.Readable(out.Resolution), round.Readable(out.TotalResolution)
	return out
}
