package report

import (
	"fmt"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
)

// attributionSections render each instruction check's attribution: where its delta went, by
// function and by source file.
func attributionSections(d *document, s *session.Summary) {
	for _, at := range s.Attribution {
		d.h2(fmt.Sprintf("Where the instructions went: %s − %s", at.A, at.B))
		d.p(fmt.Sprintf("Check %s: %s vs %s instructions per response, delta %s (%s). Rows are ranked by the size of their delta (cachegrind's per-row N/2N slopes, the median of each side's repetitions); a row missing on one side counts 0 there.",
			at.Check, fmtCount(at.TotalA), fmtCount(at.TotalB), signedCount(at.Delta), fmtPct(at.DeltaPct)))
		if at.Unavailable != "" {
			d.p("No table: " + at.Unavailable + ". The totals above are the check's.")
			continue
		}
		attributionTable(d, &at, at.Functions, "function")
		if at.Files != nil {
			d.p("By source file (inlined helpers under their own file: docs/counters.md, \"Two views\"):")
			attributionTable(d, &at, at.Files, "source file")
		}
	}
}

// attributionTable is one view: the ranked rows, everything else, the total, then the rows one
// side only has beyond the table and the view's notes.
func attributionTable(d *document, at *session.Attribution, v *session.AttributionView, what string) {
	d.p(fmt.Sprintf("A %s's delta under ±%s (the two sides' row resolutions added) is not told from noise: it is never a row, only part of everything else.", what, fmtCount(v.Resolution)))
	head := []string{"delta", "share of the delta", "points of " + fmtPct(at.DeltaPct), at.A, at.B, what}
	var rows [][]string
	for _, r := range v.Rows {
		rows = append(rows, attributionRow(at, r))
	}
	rest := fmt.Sprintf("everything else: %d more %ss above the resolution, %d with deltas each under it", v.Rest.Rows, what, v.Rest.UnderRows)
	if v.Rest.UnderDelta != nil {
		rest += fmt.Sprintf(" (those and the rows under the resolution on both sides: %s together)", signedCount(*v.Rest.UnderDelta))
	} else {
		rest += " (those and the rows under the resolution on both sides: under the resolution of a sum together)"
	}
	rows = append(rows, []string{signedCount(v.Rest.Delta), shareText(v.Rest.SharePct), pointsText(v.Rest.Delta, at.TotalB), dash, dash, rest})
	rows = append(rows, []string{signedCount(at.Delta), shareText(ptrIf(at.Delta != 0, 100)), fmtPct(at.DeltaPct), fmtCount(at.TotalA), fmtCount(at.TotalB), "total"})
	d.table(head, rows)
	for _, only := range []struct {
		side string
		rows []session.AttributionRow
	}{{at.A, v.OnlyA}, {at.B, v.OnlyB}} {
		if len(only.rows) == 0 {
			continue
		}
		var items []string
		for _, r := range only.rows {
			items = append(items, fmt.Sprintf("`%s` %s", r.Name, signedCount(r.Delta)))
		}
		d.p(fmt.Sprintf("Only %s has, past the table (the other side has no such %s, or one under its resolution): %s.", only.side, what, strings.Join(items, ", ")))
	}
	if len(v.Notes) > 0 {
		d.list(v.Notes...)
	}
}

func attributionRow(at *session.Attribution, r session.AttributionRow) []string {
	name := "`" + r.Name + "`"
	switch r.Only {
	case "a":
		name += " (only " + at.A + ")"
	case "b":
		name += " (only " + at.B + ")"
	}
	side := func(x *float64) string {
		if x == nil {
			return "·"
		}
		return fmtCount(*x)
	}
	return []string{signedCount(r.Delta), shareText(r.SharePct), fmtPct(r.PointsPct), side(r.A), side(r.B), name}
}

// signedCount is a per-response count with its sign: +312.00, −4.13.
func signedCount(x float64) string {
	if x > 0 {
		return "+" + fmtCount(x)
	}
	return fmtCount(x)
}

func shareText(p *float64) string {
	if p == nil {
		return "·"
	}
	return fmt.Sprintf("%.1f%%", *p)
}

func pointsText(delta, totalB float64) string {
	if totalB <= 0 {
		return dash
	}
	return fmtPct(100 * delta / totalB)
}

func ptrIf(ok bool, x float64) *float64 {
	if !ok {
		return nil
	}
	return &x
}
