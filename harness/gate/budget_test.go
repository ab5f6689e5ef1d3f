package gate

import (
	"testing"

	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// gatedChecks is how many statistical checks (those with looks: the ones that spend the
// false-FAIL budget) the gate makes for one race at thresholds th, at rate (nil: a closed loop),
// on six A/A pairs.
func gatedChecks(t *testing.T, th session.Thresholds, rate *session.Rate) int {
	t.Helper()
	var ps []session.Pair
	for i := 0; i < 6; i++ {
		run := session.Run{Target: "x", RPS: 1000, RPSPerCPUSecond: 1000, P50Ms: 1, P99Ms: 2, SyscallsPerResponse: 0.2}
		if rate != nil {
			run.RPS, run.Open = rate.RPS, &session.OpenLoop{Rate: rate.RPS, SentRPS: rate.RPS}
		}
		ps = append(ps, session.Pair{Index: i, Order: []string{"AB", "BA"}[i%2], A: run, B: run})
	}
	s := stats.Summarize(ps, th, stats.FixedDesign(6, 0.025))
	s.Rate = rate
	_, _, checks := Decide(&s, nil)
	n := 0
	for _, c := range checks {
		if len(c.Looks) > 0 {
			n++
		}
	}
	return n
}

// A profile splits its false-FAIL budget among as many checks as the gate makes: one fewer and
// a check would spend more than its share; one more (p99 of a closed loop, which is context) and
// every check pays for a check that gates nothing.
func TestFallibleChecksAreTheGatedChecks(t *testing.T) {
	for _, name := range []string{"quick", "ci", "release-linux", "pgo-balanced-linux", "db"} {
		for _, open := range []bool{false, true} {
			p, err := profile.Load(name, "../../profiles")
			if err != nil {
				t.Fatal(err)
			}
			var rate *session.Rate
			if open {
				if err := p.Set().Rate(5000); err != nil {
					t.Fatal(err)
				}
				rate = &session.Rate{RPS: 5000}
			}
			want := gatedChecks(t, p.GateThresholds(), rate) * len(p.Races())
			if p.PoolsThroughput() {
				want++ // the set's pooled check (Pool), beside each race's guard
			}
			if got := p.FallibleChecks(); got != want {
				t.Errorf("%s (open loop %v): FallibleChecks %d, the gate makes %d", name, open, got, want)
			}
		}
	}
}
