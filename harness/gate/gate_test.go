package gate

import (
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// race builds a summarized session of n pairs whose deltas are the given percents.
func race(deltas ...float64) *session.Summary {
	var ps []session.Pair
	for i, d := range deltas {
		ps = append(ps, session.Pair{Index: i + 1, Order: []string{"AB", "BA"}[i%2],
			A: session.Run{Target: "binding", Scenario: "ping", RPS: 1000 * (1 + d/100), P99Ms: 4},
			B: session.Run{Target: "uws", Scenario: "ping", RPS: 1000, P99Ms: 4.4}})
	}
	s := stats.Summarize(ps, session.Thresholds{MinMedianDeltaPct: -2, MaxP99DeltaPct: 10}, 1)
	s.BVersion = "20.30.0"
	return &s
}

func has(reasons []string, sub string) bool {
	for _, r := range reasons {
		if strings.Contains(r, sub) {
			return true
		}
	}
	return false
}

func TestThroughput(t *testing.T) {
	cases := []struct {
		name   string
		s      *session.Summary
		want   string
		reason string
	}{
		{"clear win", race(12, 13, 11, 14, 12, 13, 12, 15, 11, 12), session.Pass, "throughput: median delta +12.00%"},
		{"clearly slower", race(-8, -9, -7, -10, -8, -9, -8, -7, -9, -8), session.Fail, "throughput"},
		// Median around the threshold with a wide spread: the CI straddles -2%.
		{"straddles", race(-6, 3, -4, 2, -1, -3, 1, -5, 4, -2), session.Inconclusive, "straddles"},
	}
	for _, c := range cases {
		v, rs := Decide(c.s, nil)
		if v != c.want || !has(rs, c.reason) {
			t.Errorf("%s: %s %q (CI %v), want %s", c.name, v, rs, c.s.CI95Pct, c.want)
		}
	}
}

func TestCIBoundaries(t *testing.T) {
	s := race(5, 5, 5)
	s.Thresholds.MinMedianDeltaPct = 0
	for _, c := range []struct {
		m, lo, hi float64
		want      string
	}{
		{0, 0, 1, session.Pass},           // lower bound exactly at the threshold clears it
		{-1, -2, 0, session.Inconclusive}, // upper bound at the threshold: not clearly below
		{-1, -2, -0.5, session.Fail},
		{0.5, -0.5, 1, session.Inconclusive},
	} {
		s.MedianDeltaPct, s.CI95Pct = c.m, [2]float64{c.lo, c.hi}
		if v, rs := Decide(s, nil); v != c.want {
			t.Errorf("m %v CI [%v %v]: %s %q, want %s", c.m, c.lo, c.hi, v, rs, c.want)
		}
	}
}

func TestP99AndErrors(t *testing.T) {
	s := race(12, 13, 12)
	s.P99DeltaPct = 25
	if v, rs := Decide(s, nil); v != session.Fail || !has(rs, "p99") {
		t.Errorf("p99: %s %q", v, rs)
	}

	s = race(12, 13, 12)
	s.StatsA.Errors = 1
	if v, rs := Decide(s, nil); v != session.Fail || !has(rs, "errors: binding 1") {
		t.Errorf("A errors: %s %q", v, rs)
	}

	s = race(12, 13, 12)
	s.StatsB.Errors = 4
	if v, rs := Decide(s, nil); v != session.Inconclusive || !has(rs, "suspect") {
		t.Errorf("B errors: %s %q", v, rs)
	}

	s = race(12, 13, 12)
	s.Thresholds.MaxErrors = 10
	s.StatsA.Errors = 2
	if v, rs := Decide(s, nil); v != session.Pass || !has(rs, "suspect") {
		t.Errorf("errors within limit: %s %q", v, rs)
	}
}

func TestCounters(t *testing.T) {
	base := race(1, 1, 1)
	base.Counters = map[string]map[string]float64{"a": {"instructions": 9000, "branches": 1800}}
	withCounters := func(instr float64, limits map[string]float64) *session.Summary {
		s := race(12, 13, 12)
		s.Counters = map[string]map[string]float64{"a": {"instructions": instr, "branches": 1800}, "b": {}}
		s.Thresholds.CounterMaxGrowthPct = limits
		return s
	}

	if v, rs := Decide(withCounters(9400, map[string]float64{"instructions": 5}), base); v != session.Pass || !has(rs, "growth +4.44%") {
		t.Errorf("within limit: %s %q", v, rs)
	}
	if v, rs := Decide(withCounters(9500, map[string]float64{"instructions": 5}), base); v != session.Fail || !has(rs, "counter instructions") {
		t.Errorf("over limit: %s %q", v, rs)
	}

	s := withCounters(9000, map[string]float64{"cycles": 5})
	s.CountersUnsupported = map[string]string{"cycles": "no PMU"}
	if v, rs := Decide(s, base); v != session.Inconclusive || !has(rs, "missing in this session (unsupported: no PMU)") {
		t.Errorf("missing here: %s %q", v, rs)
	}
	s = withCounters(9000, map[string]float64{"branches": 5, "cache-misses": 5})
	s.Counters["a"]["cache-misses"] = 1
	if v, rs := Decide(s, base); v != session.Inconclusive || !has(rs, "missing in the baseline") {
		t.Errorf("missing in baseline: %s %q", v, rs)
	}
	if v, rs := Decide(withCounters(9000, map[string]float64{"task-clock": 5}), base); v != session.Inconclusive || !has(rs, "a time") {
		t.Errorf("time counter: %s %q", v, rs)
	}
	if v, rs := Decide(withCounters(9000, map[string]float64{"instructions": 5}), nil); v != session.Pass || !has(rs, "no baseline") {
		t.Errorf("no baseline: %s %q", v, rs)
	}
	s = withCounters(9000, map[string]float64{"instructions": 5})
	s.CountersMode, base.CountersMode = "cachegrind", "perf"
	if v, rs := Decide(s, base); v != session.Inconclusive || !has(rs, "not comparable") {
		t.Errorf("mode mismatch: %s %q", v, rs)
	}
}

func TestIncompleteNeverPasses(t *testing.T) {
	s := race(12, 13, 12)
	s.Incomplete = "uws crashed in pair 4"
	if v, rs := Decide(s, nil); v != session.Incomplete || !strings.Contains(rs[0], "uws crashed") {
		t.Errorf("%s %q", v, rs)
	}
	if v, _ := Decide(race(), nil); v == session.Pass {
		t.Error("a session without pairs passed")
	}
}

func TestHeadlineAndExitCode(t *testing.T) {
	s := race(12.71, 12.71, 12.71, 12.71, 12.71, 12.71, 12.71, 12.71, 12.71, 12.71)
	Apply(s, nil)
	if want := "binding +12.7% vs uws (pinned 20.30.0), 10/10 pairs won, regression threshold passed"; s.Headline != want {
		t.Errorf("headline %q\nwant     %q", s.Headline, want)
	}
	s = race(-8, -9, -7)
	s.BVersion = ""
	Apply(s, nil)
	if want := "binding -8.0% vs uws, 0/3 pairs won, regression threshold failed"; s.Headline != want {
		t.Errorf("headline %q", s.Headline)
	}
	s.Verdict = session.Inconclusive
	if !strings.HasSuffix(Headline(s), "regression threshold inconclusive") {
		t.Error(Headline(s))
	}
	s.Verdict, s.Incomplete = session.Incomplete, "interrupted"
	if !strings.HasSuffix(Headline(s), "session incomplete (interrupted)") {
		t.Error(Headline(s))
	}
	for v, code := range map[string]int{session.Pass: 0, session.Fail: 1, session.Incomplete: 2, session.Inconclusive: 3, "": 2} {
		if ExitCode(v) != code {
			t.Errorf("ExitCode(%q) = %d, want %d", v, ExitCode(v), code)
		}
	}
}
