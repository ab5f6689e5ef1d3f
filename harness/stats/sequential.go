package stats

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/bindrace/bindrace/harness/session"
)

// A race's checks are sign tests of a median: how many pair deltas lie beyond the check's limit.
// Whatever the deltas' distribution (skewed, heavy-tailed, drifting), when the true median sits
// on the limit each delta is beyond it with probability 1/2, so the count after n pairs is
// Binomial(n, 1/2) — and when the median lies on the passing side, fewer (a sign test is
// conservative inside its null). That makes the exact error of any plan of looks computable.
//
// A sequential design looks after every even pair count n (AB and BA equally often) from
// MinPairs to MaxPairs. At look n a check decides once at least c_n of its n deltas lie on one
// side of its limit. The bounds c_n are found by walking the exact distribution of the count
// forward, look by look, removing the paths that crossed: c_n is the smallest count whose extra
// crossing probability keeps the total spent within α·f(n/MaxPairs), where f is the Lan-DeMets
// Pocock-type spending function ln(1 + (e-1)t). So, over every look together, a check whose
// median sits on its limit crosses in a given direction with probability at most α, however
// early or late the race stops — at a decision, at MaxPairs, or when its time runs out.
//
// Why this and not an anytime-valid confidence sequence (a beta-binomial mixture martingale
// with Ville's inequality): the plan knows its horizon, and Ville's bound is loose at the pair
// counts a race affords. With α = 2.5% a mixture needs 8 unanimous pairs and 12 with one
// dissent; this plan decides at 8 and 10. Why Pocock-type spending: it spends early, which lets
// an obvious race (binding vs uws) stop at 8 pairs, while a close one loses little at the end
// (sequential_test.go compares spending functions).

// PocockSpending names the spending function of SequentialDesign.
const PocockSpending = "lan-demets-pocock"

// pocock is the share of α a sequential design may have spent by information fraction t.
func pocock(t float64) float64 { return math.Log(1 + (math.E-1)*min(t, 1)) }

// SequentialDesign plans looks after every even pair count from minPairs to maxPairs (both
// rounded up to even), each check spending at most alpha per direction over all of them.
func SequentialDesign(minPairs, maxPairs int, alpha float64) (*session.Design, error) {
	return plan(minPairs, maxPairs, alpha, pocock)
}

// plan is SequentialDesign with spending function f (the share of alpha spent by fraction t).
func plan(minPairs, maxPairs int, alpha float64, f func(t float64) float64) (*session.Design, error) {
	minPairs, maxPairs = evenUp(max(minPairs, 2)), evenUp(maxPairs)
	if maxPairs < minPairs {
		return nil, fmt.Errorf("max_pairs %d is below min_pairs %d", maxPairs, minPairs)
	}
	if alpha <= 0 || alpha >= 0.5 {
		return nil, fmt.Errorf("alpha %g is not in (0, 0.5)", alpha)
	}
	d := &session.Design{Kind: session.DesignSequential, MinPairs: minPairs, MaxPairs: maxPairs, Alpha: alpha, Spending: PocockSpending}
	survivors := []float64{1} // P(count = k, no bound crossed yet), count of n deltas beyond
	spent := 0.0
	for n := minPairs; n <= maxPairs; n += 2 {
		for len(survivors) <= n {
			survivors = addSign(survivors)
		}
		c, tail := n+1, 0.0
		allowed := alpha*f(float64(n)/float64(maxPairs)) - spent
		for k := n; k > n/2; k-- { // c above n/2: both directions can never decide at once
			if tail+survivors[k] > allowed+1e-15 {
				break
			}
			tail += survivors[k]
			c = k
		}
		for k := c; k <= n; k++ {
			survivors[k] = 0
		}
		spent += tail
		d.Looks, d.Bounds, d.Spent = append(d.Looks, n), append(d.Bounds, c), append(d.Spent, spent)
	}
	if d.Bounds[len(d.Bounds)-1] > maxPairs {
		return nil, fmt.Errorf("%d pairs cannot decide a check at alpha %.4g: even unanimous pairs stay inside the bounds (need max_pairs of at least %d)",
			maxPairs, alpha, MinDecisivePairs(alpha))
	}
	return d, nil
}

// addSign is the distribution of the count after one more delta, beyond with probability 1/2.
func addSign(p []float64) []float64 {
	next := make([]float64, len(p)+1)
	for k, v := range p {
		next[k] += v / 2
		next[k+1] += v / 2
	}
	return next
}

// MinDecisivePairs is the fewest pairs (even) whose unanimous deltas can decide a check at
// alpha per direction: 2^-n <= alpha.
func MinDecisivePairs(alpha float64) int {
	n := int(math.Ceil(-math.Log2(alpha) - 1e-12))
	return evenUp(max(n, 2))
}

// FirstDecisiveLook is the fewest pairs at which d can decide anything: its first look whose
// bound the pairs can reach.
func FirstDecisiveLook(d *session.Design) int {
	for i, n := range d.Looks {
		if d.Bounds[i] <= n {
			return n
		}
	}
	return d.MaxPairs
}

// FixedDesign is one look after all the pairs a race measured: the order-statistic interval
// of MedianInterval at level 1 - 2·alpha.
func FixedDesign(pairs int, alpha float64) *session.Design {
	d := &session.Design{Kind: session.DesignFixed, MaxPairs: pairs, Alpha: alpha}
	if pairs > 0 {
		k, tail := orderFor(pairs, 1-2*alpha)
		c := pairs + 1 - k
		if k == 0 {
			c, tail = pairs+1, 0
		}
		d.Looks, d.Bounds, d.Spent = []int{pairs}, []int{c}, []float64{tail}
	}
	return d
}

// ErrNoLook is returned by LooksOf for a design without a look (no pairs planned).
var ErrNoLook = errors.New("the design has no look")

// LooksOf is the interval of the median of xs (deltas in pair order) at every look of d that
// len(xs) has reached. A fixed design looks once, at len(xs), whatever it planned: a pair that
// failed is left out, and the interval is the one its complete pairs give.
func LooksOf(d *session.Design, xs []float64) []session.Look {
	if d == nil || len(xs) == 0 {
		return nil
	}
	if d.Kind == session.DesignFixed {
		return []session.Look{lookAt(xs, FixedDesign(len(xs), d.Alpha).Bounds[0])}
	}
	var out []session.Look
	for i, n := range d.Looks {
		if n > len(xs) {
			break
		}
		out = append(out, lookAt(xs[:n], d.Bounds[i]))
	}
	return out
}

// lookAt is the interval [x(n+1-c), x(c)] of xs, or none while c > n.
func lookAt(xs []float64, c int) session.Look {
	n := len(xs)
	l := session.Look{Pairs: n}
	if c > n || c <= n/2 {
		return l
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	l.Interval = &[2]float64{s[n-c], s[c-1]}
	return l
}

// Coverage is the simultaneous coverage of a design's intervals up to the look at pairs (the
// last look not after it): 1 - 2·Spent. A fixed design's is its interval's real coverage.
func Coverage(d *session.Design, pairs int) float64 {
	if d == nil {
		return math.NaN()
	}
	if d.Kind == session.DesignFixed {
		return 1 - 2*FixedDesign(pairs, d.Alpha).Spent[0]
	}
	spent := 0.0
	for i, n := range d.Looks {
		if n > pairs {
			break
		}
		spent = d.Spent[i]
	}
	return 1 - 2*spent
}

// BeyondCount counts the deltas above and below limit (a delta on it counts for neither).
func BeyondCount(xs []float64, limit float64) (above, below int) {
	for _, x := range xs {
		switch {
		case x > limit:
			above++
		case x < limit:
			below++
		}
	}
	return above, below
}

// Evidence is what a paired check decides on: its per-pair deltas as read for a PASS and as
// read for a FAIL. The two are the same deltas but for throughput with client-bound runs,
// whose PASS is read with B's such runs at their bounds and whose FAIL with A's
// (clientbound.go).
type Evidence struct{ ForPass, ForFail []float64 }

// Plain is the evidence of deltas read the same way for either verdict.
func Plain(xs []float64) Evidence { return Evidence{xs, xs} }

// EvidenceOf is the evidence of metric (a PairedMetrics name) in pairs.
func EvidenceOf(pairs []session.Pair, metric string) Evidence {
	for _, m := range PairedMetrics {
		if m.Name != metric {
			continue
		}
		if metric != MetricRPS {
			return Plain(PairDeltas(pairs, m.Get))
		}
		withB, _ := boundedPairs(pairs, "b")
		withA, _ := boundedPairs(pairs, "a")
		return Evidence{ForPass: PairDeltas(withB, nil), ForFail: PairDeltas(withA, nil)}
	}
	return Evidence{}
}

// lean is the count of deltas on the side the evidence leans to — above limit as read for a
// PASS, or below it as read for a FAIL — and the pairs counted.
func (e Evidence) lean(limit float64) (count, n int) {
	above, _ := BeyondCount(e.ForPass, limit)
	_, below := BeyondCount(e.ForFail, limit)
	return max(above, below), len(e.ForPass)
}

// PairsNeeded estimates the pairs a check would need to decide, from how its evidence falls
// around limit: with a share p of the deltas on the side they lean to (shrunk towards 1/2 by
// one half-count), the count on that side grows as p·n and a bound c_n ≈ n/2 + z·√n/2, so it
// crosses near n = (z / (2p-1))². z is the nominal level of d's last bound; a longer plan's
// last bound is a little higher, so this is an estimate, printed as "about". 0 when the deltas
// lean to neither side (no number of pairs would decide on this evidence).
func PairsNeeded(d *session.Design, e Evidence, limit float64) int {
	count, n := e.lean(limit)
	if d == nil || len(d.Looks) == 0 || n == 0 {
		return 0
	}
	p := (float64(count) + 0.5) / (float64(n) + 1)
	if p <= 0.5 {
		return 0
	}
	last := len(d.Looks) - 1
	z := (2*float64(d.Bounds[last]) - float64(d.Looks[last])) / math.Sqrt(float64(d.Looks[last]))
	need := math.Ceil(math.Pow(z/(2*p-1), 2))
	if need > 1e6 {
		return 0
	}
	return evenUp(max(int(need), n+1))
}

// PairsToDecide is the first look of d after the evidence's pairs where the count would reach
// its bound if the deltas went on falling as they have, for the progress line; 0 when no look
// of the plan would.
func PairsToDecide(d *session.Design, e Evidence, limit float64) int {
	count, n := e.lean(limit)
	if d == nil || d.Kind != session.DesignSequential || n == 0 {
		return 0
	}
	p := float64(count) / float64(n)
	for i, look := range d.Looks {
		if look > n && p*float64(look) >= float64(d.Bounds[i]) {
			return look
		}
	}
	return 0
}

func evenUp(n int) int { return n + n%2 }
