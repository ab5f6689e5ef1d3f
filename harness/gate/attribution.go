package gate

import (
	"fmt"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// attributed is the counter whose checks are attributed to functions.
const attributed = "instructions"

// attributeSides explains the instruction check of A against B in the session: nil when the
// session has no such check (no deterministic counts of both sides).
func attributeSides(s *session.Summary) *session.Attribution {
	if _, gated := s.Thresholds.CounterMaxDeltaPct[attributed]; !gated || !deterministic(s.CountersMode) {
		return nil
	}
	a, okA := s.Counters["a"][attributed]
	b, okB := s.Counters["b"][attributed]
	if !okA || !okB || b <= 0 {
		return nil
	}
	at := newAttribution(attributed, s.A, s.B, a, b)
	ba, bb := s.Breakdowns["a"], s.Breakdowns["b"]
	if ba == nil || bb == nil || ba.Functions == nil || bb.Functions == nil {
		at.Unavailable = "this session recorded no per-function counts of both sides (a summary written before them, or out files without functions)"
		return at
	}
	fillViews(at, ba, bb)
	return at
}

// attributeBaseline explains A's instruction check against the baseline's entry.
func attributeBaseline(s *session.Summary, base *Baseline) *session.Attribution {
	if _, gated := s.Thresholds.CounterMaxGrowthPct[attributed]; !gated {
		return nil
	}
	cur, okCur := s.Counters["a"][attributed]
	old, okOld := base.Entry.Counters[attributed]
	if !okCur || !okOld || old <= 0 {
		return nil
	}
	at := newAttribution("baseline:"+attributed, s.A, "baseline "+base.Path, cur, old)
	ba, bb := s.Breakdowns["a"], base.Entry.Breakdowns
	switch {
	case bb == nil || bb.Functions == nil:
		at.Unavailable = fmt.Sprintf("the baseline %s (schema_version %d) has no per-function counts: `make baseline` (or `bindrace baseline write`) rewrites it with them",
			base.Path, base.File.SchemaVersion)
	case ba == nil || ba.Functions == nil:
		at.Unavailable = "this session recorded no per-function counts of " + s.A
	default:
		fillViews(at, ba, bb)
	}
	return at
}

func newAttribution(check, a, b string, totalA, totalB float64) *session.Attribution {
	d := totalA - totalB
	return &session.Attribution{Check: check, Counter: attributed, A: a, B: b, TotalA: totalA, TotalB: totalB,
		Delta: round.To(d, 6), DeltaPct: round.To(counterDelta(totalA, totalB), 6)}
}

// fillViews ranks both views; the by-file view only where both sides have it.
func fillViews(at *session.Attribution, a, b *session.Breakdowns) {
	at.Functions = stats.AttributeView(a.Functions, b.Functions, at.Delta, at.TotalB)
	if a.Files != nil && b.Files != nil {
		at.Files = stats.AttributeView(a.Files, b.Files, at.Delta, at.TotalB)
	}
}

// attributionNote is the reason line that follows an attributed check: the first functions of
// its table with their shares, or why there is no table.
func attributionNote(at *session.Attribution) string {
	head := fmt.Sprintf("%s − %s by function, %+.1f instructions per response", at.A, at.B, at.Delta)
	if at.Unavailable != "" {
		return head + ": no table: " + at.Unavailable
	}
	v := at.Functions
	if len(v.Rows) == 0 {
		return head + fmt.Sprintf(": no function's delta reaches the resolution (±%.1f)", v.Resolution)
	}
	var parts []string
	for _, r := range v.Rows[:min(3, len(v.Rows))] {
		parts = append(parts, rowText(r))
	}
	more := ""
	if len(v.Rows) > 3 {
		more = fmt.Sprintf(", %d more in summary.md", len(v.Rows)-3)
	}
	return head + ": " + strings.Join(parts, ", ") + more
}

// rowText is "main.regress +123.0 (95.1%)", with "only in A" for a one-sided row.
func rowText(r session.AttributionRow) string {
	t := fmt.Sprintf("%s %+.1f", r.Name, r.Delta)
	if r.SharePct != nil {
		t += fmt.Sprintf(" (%.1f%%)", *r.SharePct)
	}
	return t
}

// attributions are the tables of every instruction check of s (and of its baseline check).
func attributions(s *session.Summary, base *Baseline) []session.Attribution {
	var out []session.Attribution
	if at := attributeSides(s); at != nil {
		out = append(out, *at)
	}
	if base != nil {
		if at := attributeBaseline(s, base); at != nil {
			out = append(out, *at)
		}
	}
	return out
}

// noteAttribution follows check's reason with its attribution, when s has one.
func noteAttribution(d *decision, s *session.Summary, check string) {
	for _, at := range s.Attribution {
		if at.Check == check {
			d.note("%s", attributionNote(&at))
		}
	}
}

// topFunction names, for the headline, the function of check's attribution that moved most in
// the direction of the check's delta (the table ranks by size either way; a FAIL's reader wants
// what grew), its parameter list cut; "" when there is none.
func topFunction(s *session.Summary, check string) string {
	for _, at := range s.Attribution {
		if at.Check != check || at.Functions == nil {
			continue
		}
		for _, r := range at.Functions.Rows {
			if r.Delta*at.Delta > 0 {
				if i := strings.IndexByte(r.Name, '('); i > 0 && strings.Contains(r.Name[:i], "::") { // C++, not a Go receiver
					r.Name = r.Name[:i]
				}
				return "; most: " + rowText(r)
			}
		}
	}
	return ""
}
