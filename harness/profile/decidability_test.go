package profile

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/stats"
)

// allWonPairs is the fewest pairs at which a check of p's design at alpha, every pair won,
// decides: the first look whose bound the pairs reach, or 0 when none does.
func allWonPairs(p *Profile, alpha float64) (int, error) {
	d := stats.FixedDesign(p.Pairs+p.Pairs%2, alpha)
	if sq := p.Sequential; sq != nil {
		var err error
		if d, err = stats.SequentialDesign(sq.MinPairs, sq.MaxPairs, alpha); err != nil {
			return 0, err
		}
	}
	for i, n := range d.Looks {
		if d.Bounds[i] <= n {
			return n, nil
		}
	}
	return 0, nil
}

// budgetText is a profile's pair budget: "10 (fixed)" or "6-14 (sequential, 3m0s)".
func budgetText(p *Profile) string {
	if p.Sequential == nil {
		return fmt.Sprintf("%d (fixed)", p.Pairs)
	}
	return fmt.Sprintf("%d-%d (sequential, %s)", p.Sequential.MinPairs, p.Sequential.MaxPairs, p.Sequential.MaxTime.D())
}

// TestDecidability: every check a shipped profile gates can decide within its budget when every
// pair is won, at its share of the false-FAIL budget; the table (docs/statistics.md, "Which
// checks gate") comes from `go test -run TestDecidability -v ./harness/profile`. The old rule's
// column gates the closed loop's p99 too (one more check a race), as profiles did before.
func TestDecidability(t *testing.T) {
	var table strings.Builder
	table.WriteString("| profile | races | gated checks a race | per check and direction | pair budget | all-won pairs to decide | old rule (p99 gated): checks, per check, all-won pairs |\n|---|---|---|---|---|---|---|\n")
	for _, name := range []string{"quick", "release-linux", "ci", "pgo-balanced-linux", "db"} {
		p, err := Load(name, shipped)
		if err != nil {
			t.Fatal(err)
		}
		need, err := allWonPairs(p, p.Alpha())
		budget := p.Pairs
		if p.Sequential != nil {
			budget = p.Sequential.MaxPairs
		}
		if err != nil || need == 0 || need > budget {
			t.Errorf("%s: all-won pairs %d, budget %d: %v", name, need, budget, err)
		}
		races := len(p.Races())
		perRace, share := p.FallibleChecks()/races, fmt.Sprintf("%.4g%%", 100*p.Alpha())
		if p.PoolsThroughput() { // each race's guard, and one pooled check with half the budget
			share = fmt.Sprintf("%s (each race's guard, FAIL only); %.4g%% (the pooled check)", share, 100*PooledAlpha(p.Confidence))
			if pooledNeed, _ := allWonPairs(p, PooledAlpha(p.Confidence)); pooledNeed == 0 || pooledNeed > budget {
				t.Errorf("%s: the pooled check decides at %d pairs, budget %d", name, pooledNeed, budget)
			}
		}
		oldChecks := (perRace + 1) * races // p99 of every closed-loop race besides, unpooled
		oldAlpha := (1 - p.Confidence) / float64(oldChecks)
		oldNeed, _ := allWonPairs(p, oldAlpha)
		fmt.Fprintf(&table, "| %s | %d | %d | %s | %s | %d | %d, %.4g%%, %d |\n", name, races, perRace,
			share, budgetText(p), need, oldChecks, 100*oldAlpha, oldNeed)
	}
	t.Logf("which checks gate, and the pairs they need with every pair won:\n%s", table.String())
}

// The check above fails on a budget that cannot decide: a profile whose design allows fewer
// pairs than unanimous pairs need (built past Check, which refuses it) reads as undecidable.
func TestDecidabilityCatchesAnUndecidableBudget(t *testing.T) {
	p := Default()
	p.Sequential, p.Pairs = &Sequential{MinPairs: 2, MaxPairs: 4}, 0
	if need, err := allWonPairs(&p, p.Alpha()); err == nil && need != 0 {
		t.Errorf("2-4 pairs at %.4g%%: decides at %d", 100*p.Alpha(), need)
	}
	p.Sequential, p.Pairs = nil, 4
	if need, err := allWonPairs(&p, p.Alpha()); err != nil || need != 0 {
		t.Errorf("a fixed 4 pairs at %.4g%%: decides at %d (%v)", 100*p.Alpha(), need, err)
	}
}
