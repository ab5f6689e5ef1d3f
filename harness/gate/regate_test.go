package gate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

func TestWorst(t *testing.T) {
	v := session.Pass
	for _, x := range []string{session.Inconclusive, session.Pass, session.Fail, session.Inconclusive} {
		v = Worst(v, x)
	}
	if v != session.Fail {
		t.Errorf("worst: %s", v)
	}
	if Worst(v, session.Incomplete) != session.Incomplete {
		t.Errorf("incomplete must win")
	}
}

// TestRegateSchema2: a race saved before schema 3 (make bench on 2026-12-01, 6 fixed pairs)
// re-gates with the interval it recorded, and at another threshold walks that one look; a
// client-bound run now enters the interval at its bound instead of vetoing the verdict.
func TestRegateSchema2(t *testing.T) {
	out, v, err := Regate("testdata/schema2", nil, "", false)
	if err != nil || v != session.Pass {
		t.Fatalf("%v %s", err, v)
	}
	s := out[0].Summary
	c := check(s.Checks, stats.MetricRPS)
	if s.Design == nil || s.Design.Kind != session.DesignFixed || c.Interval[0] != 127.99424816012453 || c.Interval[1] != 156.96100222412014 {
		t.Errorf("design %+v, interval %v (recorded [127.99, 156.96])", s.Design, c.Interval)
	}
	if _, v, _ := Regate("testdata/schema2", []string{"200"}, "", false); v != session.Fail {
		t.Errorf("at +200%%: %s", v)
	}
	// uws's run of pair 2 at 88% CPU: at its bound the interval's low end falls, the verdict stays.
	s.Pairs[2].B.ClientBound, s.Pairs[2].B.ServerCPUPct = true, 88
	s.Design = nil
	stats.Redesign(s)
	Apply(s, nil)
	if c := check(s.Checks, stats.MetricRPS); s.Verdict != session.Pass || c.Interval[0] >= 127.99 || !has(s.Reasons, "1 client-bound run(s)") {
		t.Errorf("client-bound uws run: %s %v %q", s.Verdict, c.Interval, s.Reasons)
	}
}

// TestRegateSequential: a saved sequential race re-gated at another limit walks the same looks.
func TestRegateSequential(t *testing.T) {
	dir := t.TempDir()
	s := seqRace(t, -5, 150, 140, 160, 150, 145, 155, 150, 150)
	if err := session.WriteJSON(filepath.Join(dir, session.SummaryFile), s); err != nil {
		t.Fatal(err)
	}
	out, v, err := Regate(dir, []string{"145"}, "", false)
	if err != nil || v != session.Inconclusive {
		t.Fatalf("at +145%%: %v %s", err, v)
	}
	if c := check(out[0].Summary.Checks, stats.MetricRPS); c.DecidedAt != 0 || len(c.Looks) != 2 || c.PairsNeeded == 0 {
		t.Errorf("at +145%%: %+v", c)
	}
}

// A session saved when a closed loop's p99 still gated re-gates under the current rule, and its
// reasons say so with the old rule's verdict: here the old rule PASSed it too (make bench of
// 2026-12-01, p99 -41.6% against +25%), and it says what changed all the same.
func TestRegateOldRulePassed(t *testing.T) {
	out, v, err := Regate("testdata/schema2", nil, "", false)
	if err != nil || v != session.Pass {
		t.Fatalf("%v %s", err, v)
	}
	s := out[0].Summary
	if len(s.Reasons) == 0 || !strings.HasPrefix(s.Reasons[0], "rule changed: a closed-loop p99 is context") ||
		!strings.Contains(s.Reasons[0], "under the old rule (p99 gated at +25%) this session was PASS, under the current one PASS") ||
		check(s.Checks, stats.MetricP99) != nil || check(s.Context, stats.MetricP99) == nil {
		t.Errorf("reasons %q\nchecks %+v", s.Reasons, s.Checks)
	}
	// Re-gated again, the session is under the current rule already: no second note.
	dir := t.TempDir()
	if err := session.WriteJSON(filepath.Join(dir, session.SummaryFile), s); err != nil {
		t.Fatal(err)
	}
	if out, _, err := Regate(dir, nil, "", false); err != nil || has(out[0].Summary.Reasons, "rule changed") {
		t.Errorf("a session gated under the current rule: %v %q", err, out[0].Summary.Reasons)
	}
}

// The make bench of issue 36: 12 of 12 pairs won on throughput per CPU-second, p99 deltas from
// -50% to +41% against +25%. Saved under the old rule it was INCONCLUSIVE (the p99 check wanted
// about 76 pairs); re-gated it PASSes and says what the old rule said.
func TestRegateOldRuleInconclusive(t *testing.T) {
	d, err := stats.SequentialDesign(6, 14, 0.025)
	if err != nil {
		t.Fatal(err)
	}
	p99 := []float64{-50.1, 41.4, -23.9, 12, -30, 35, -40, -10, 20, -35, 30, -28}
	s := raceP([]float64{45, 41, 48, 44, 46, 43, 47, 45, 42, 44, 49, 45}, p99)
	s.Thresholds.MaxP99DeltaPct = 25
	*s = stats.Summarize(s.Pairs, s.Thresholds, d)
	s.A, s.B, s.DecideOn = "binding", "uws", stats.MetricRPSPerCPUSec
	old := decide(s, nil, oldP99Rule) // what the old gate stored
	s.Verdict, s.Reasons, s.Checks = old.verdict, old.reasons, old.checks
	if s.Verdict != session.Inconclusive {
		t.Fatalf("the fixture must be one the old rule held: %s %q", s.Verdict, s.Reasons)
	}
	dir := t.TempDir()
	if err := session.WriteJSON(filepath.Join(dir, session.SummaryFile), s); err != nil {
		t.Fatal(err)
	}
	out, v, err := Regate(dir, nil, "", false)
	if err != nil || v != session.Pass {
		t.Fatalf("%v %s", err, v)
	}
	r := out[0].Summary
	if !strings.Contains(r.Reasons[0], "under the old rule (p99 gated at +25%) this session was INCONCLUSIVE, under the current one PASS") ||
		!strings.Contains(r.Reasons[0], "2.5% per check and direction") || !strings.HasPrefix(r.Headline, "PASS: binding") ||
		!strings.Contains(r.Headline, "per server CPU-second") || !strings.Contains(r.Headline, "(saturation, context)") {
		t.Errorf("reasons %q\nheadline %q", r.Reasons, r.Headline)
	}
}
