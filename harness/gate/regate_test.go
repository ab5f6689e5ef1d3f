package gate

import (
	"path/filepath"
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
	out, v, err := Regate("testdata/schema2", nil, "")
	if err != nil || v != session.Pass {
		t.Fatalf("%v %s", err, v)
	}
	s := out[0].Summary
	c := check(s.Checks, stats.MetricRPS)
	if s.Design == nil || s.Design.Kind != session.DesignFixed || c.Interval[0] != 127.99424816012453 || c.Interval[1] != 156.96100222412014 {
		t.Errorf("design %+v, interval %v (recorded [127.99, 156.96])", s.Design, c.Interval)
	}
	if _, v, _ := Regate("testdata/schema2", []string{"200"}, ""); v != session.Fail {
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
	out, v, err := Regate(dir, []string{"145"}, "")
	if err != nil || v != session.Inconclusive {
		t.Fatalf("at +145%%: %v %s", err, v)
	}
	if c := check(out[0].Summary.Checks, stats.MetricRPS); c.DecidedAt != 0 || len(c.Looks) != 2 || c.PairsNeeded == 0 {
		t.Errorf("at +145%%: %+v", c)
	}
}
