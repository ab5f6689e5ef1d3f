package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// stealyPair simulates one interleaved pair of an A/A race on a VM whose hypervisor steals:
// k rounds of partner windows, each side's window at the machine's speed of the moment (which
// wanders, and both sides feel) times its own noise; a window hit by steal (probability q)
// loses that share of its throughput. keep decides from the two windows' steal whether the
// round stays; a round set aside is measured again, at most k extra times. It returns the
// pair's throughput delta (the median of its window deltas, as ThroughputDelta) and how many
// rounds were set aside.
func stealyPair(r *rand.Rand, k int, q float64, keep func(stealA, stealB float64) bool) (float64, int) {
	speed := 1.0
	window := func() (rps, steal float64) {
		speed *= 1 + 0.01*r.NormFloat64()
		if r.Float64() < q {
			steal = 3 + 22*r.Float64() // 3-25% of the CPUs' time
		}
		return 1e6 * speed * (1 + 0.04*r.NormFloat64()) * (1 - steal/100), steal
	}
	var a, b []float64
	setAside := 0
	for len(a) < k {
		ra, sa := window()
		rb, sb := window()
		if !keep(sa, sb) && setAside < k {
			setAside++
			continue
		}
		a, b = append(a, ra), append(b, rb)
	}
	return ThroughputDelta(session.Pair{A: session.Run{RPS: 1, Windows: a}, B: session.Run{RPS: 1, Windows: b}}), setAside
}

// TestStealSetAside is the proof behind the steal rule: on a VM that steals now and then, A/A
// races keep the false-FAIL budget with the rule (rounds set aside on either side's steal, both
// windows dropped) and without it, and the rule narrows their intervals; a one-sided rule that
// re-measures only when B's window was spoiled (it depends on which side ran) leaves A's
// spoiled windows in and FAILs an unchanged build far beyond the budget.
// `go test -run TestStealSetAside -v ./harness/stats` prints the table (docs/statistics.md).
func TestStealSetAside(t *testing.T) {
	const trials, k, q = 4000, 4, 0.15
	d, err := SequentialDesign(6, 30, 0.025)
	if err != nil {
		t.Fatal(err)
	}
	rules := []struct {
		name string
		keep func(sa, sb float64) bool
	}{
		{"none", func(float64, float64) bool { return true }},
		{"either side over 2%, both windows set aside", func(sa, sb float64) bool { return !Spoiled(sa, sb, StealLimitPct) }},
		{"only B's window over 2% (one-sided)", func(_, sb float64) bool { return sb <= StealLimitPct }},
	}
	var table strings.Builder
	table.WriteString("| rule | false FAIL at limit 0 | rounds set aside | half-width of the interval at 12 pairs |\n|---|---|---|---|\n")
	var rates, widths []float64
	for ri, rule := range rules {
		rng := rand.New(rand.NewPCG(uint64(ri+1), 5))
		fails, aside, rounds := 0, 0, 0
		var halfs []float64
		for i := 0; i < trials; i++ {
			xs := make([]float64, 0, d.MaxPairs)
			for li, n := range d.Looks {
				for len(xs) < n {
					x, s := stealyPair(rng, k, q, rule.keep)
					xs, aside, rounds = append(xs, x), aside+s, rounds+k+s
				}
				if below, c := countBelow(xs, 0), d.Bounds[li]; below >= c {
					fails++
					break
				} else if len(xs)-below >= c {
					break
				}
			}
			if len(xs) >= 12 {
				if iv := LooksOf(d, xs[:12])[3].Interval; iv != nil {
					halfs = append(halfs, (iv[1]-iv[0])/2)
				}
			}
		}
		rate := float64(fails) / trials
		rates, widths = append(rates, rate), append(widths, Median(halfs))
		fmt.Fprintf(&table, "| %s | %.2f%% | %.1f%% | ±%.2f%% |\n", rule.name, rate*100, 100*float64(aside)/float64(rounds), Median(halfs))
	}
	t.Logf("A/A races, %d windows per side per pair, steal in %.0f%% of windows, %d races per row:\n%s", k, q*100, trials, table.String())
	se := math.Sqrt(0.025 * 0.975 / trials)
	if rates[0] > 0.025+4*se || rates[1] > 0.025+4*se {
		t.Errorf("false FAIL without the rule %.2f%%, with it %.2f%%: over 2.5%%", rates[0]*100, rates[1]*100)
	}
	if rates[2] <= 0.025+4*se {
		t.Errorf("the one-sided rule stayed within the budget (%.2f%%): the simulation cannot tell a biased rule", rates[2]*100)
	}
	if widths[1] >= widths[0] {
		t.Errorf("setting spoiled rounds aside did not narrow the interval: ±%.2f%% against ±%.2f%%", widths[1], widths[0])
	}
}

func countBelow(xs []float64, limit float64) int {
	_, below := BeyondCount(xs, limit)
	return below
}
