package stats

import (
	"fmt"
	"math"
	"sort"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
)

// AttributionTop is how many rows an attribution ranks; the rest is one "everything else" row.
const AttributionTop = 15

// AttributeView ranks the rows of one view by the size of their delta between side a and side b
// (instructions per response; a side that does not list a row counts it 0). delta is the
// check's own difference of totals (A − B) and totalB B's total, so that the rows and the
// "everything else" row add up to the check's delta exactly, whatever the per-row medians'
// rounding. A row's delta under the resolution (the two sides' row resolutions added) is never
// ranked: it is counted in the rest, and its sum shown only where it reaches the resolution of
// a sum. Shares are of the check's delta, which the check itself takes as measured.
func AttributeView(a, b *session.Breakdown, delta, totalB float64) *session.AttributionView {
	v := &session.AttributionView{Resolution: round.To(a.Resolution+b.Resolution, 6)}
	sumRes := a.TotalResolution + b.TotalResolution
	va, vb := rowValues(a), rowValues(b)
	var resolved []session.AttributionRow
	for _, name := range unionNames(va, vb) {
		x, okA := va[name]
		y, okB := vb[name]
		r := session.AttributionRow{Name: name, Delta: round.To(x.Instructions-y.Instructions, 6), NoSymbol: x.NoSymbol || y.NoSymbol}
		if okA {
			r.A = ptr(x.Instructions)
		}
		if okB {
			r.B = ptr(y.Instructions)
		}
		switch {
		case okA && !okB:
			r.Only = "a"
		case okB && !okA:
			r.Only = "b"
		}
		if math.Abs(r.Delta) < v.Resolution {
			v.Rest.UnderRows++
			continue
		}
		resolved = append(resolved, r)
	}
	sort.SliceStable(resolved, func(i, j int) bool { return math.Abs(resolved[i].Delta) > math.Abs(resolved[j].Delta) })
	// A check's delta within the resolution of a sum is noise: shares of it would only divide
	// by noise (a +6 row of a +0.3 delta is "2000%"), so there are none.
	sharable := delta != 0 && math.Abs(delta) >= sumRes
	share := func(x float64) *float64 {
		if !sharable {
			return nil
		}
		return ptr(round.To(100*x/delta, 6))
	}
	listed := 0.0
	for i, r := range resolved {
		listed += r.Delta
		if totalB > 0 {
			r.PointsPct = round.To(100*r.Delta/totalB, 6)
		}
		r.SharePct = share(r.Delta)
		if i < AttributionTop {
			v.Rows = append(v.Rows, r)
			continue
		}
		v.Rest.Rows++
		switch r.Only {
		case "a":
			v.OnlyA = append(v.OnlyA, r)
		case "b":
			v.OnlyB = append(v.OnlyB, r)
		}
	}
	top := 0.0
	for _, r := range v.Rows {
		top += r.Delta
	}
	v.Rest.Delta = round.To(delta-top, 6)
	v.Rest.SharePct = share(delta - top)
	if under := delta - listed; math.Abs(under) >= sumRes {
		v.Rest.UnderDelta = ptr(round.To(under, 6))
	}
	v.Notes = append(append([]string(nil), a.Notes...), b.Notes...)
	if !sharable && delta != 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("the check's delta, %+.1f, is within the resolution of a sum (±%.1f): no shares of it are given", delta, sumRes))
	}
	return v
}

// rowValues indexes a breakdown's listed rows by name.
func rowValues(b *session.Breakdown) map[string]session.BreakdownRow {
	m := make(map[string]session.BreakdownRow, len(b.Rows))
	for _, r := range b.Rows {
		m[r.Name] = r
	}
	return m
}

// unionNames is every name of a or b, sorted (so ties rank the same way every time).
func unionNames(a, b map[string]session.BreakdownRow) []string {
	var names []string
	for n := range a {
		names = append(names, n)
	}
	for n := range b {
		if _, ok := a[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func ptr(x float64) *float64 { return &x }
