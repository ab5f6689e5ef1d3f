package gate

import (
	"fmt"
	"github.com/bindrace/bindrace/harness/counters"
	"sort"

	"github.com/bindrace/bindrace/harness/session"
)

// deterministic says whether counts taken in mode repeat run to run, as the modes' table
// (counters.Modes) says: cachegrind counts instructions of the server's own code, repeatable to
// a few hundredths of a percent, where perf counts on a real CPU carry the machine's noise (and
// need a PMU most CI runners lack). Only such counts are gated.
func deterministic(mode string) bool {
	m, ok := counters.ModeNamed(mode)
	return ok && m.Deterministic
}

// checkCounters applies Thresholds.CounterMaxDeltaPct: A's per-response count may exceed B's
// by at most the given percent. Counts are nearly deterministic, so no interval is involved,
// but each side's count is known only to its resolution (time-driven work of the runtime, a
// one-off heap growth): a delta within the sides' resolutions of the limit decides nothing
// (INCONCLUSIVE, naming the band). A counter missing, or counted in a non-deterministic mode,
// is INCONCLUSIVE too, never a silent pass.
func checkCounters(d *decision, s *session.Summary) {
	for _, name := range sortedNames(s.Thresholds.CounterMaxDeltaPct) {
		limit := s.Thresholds.CounterMaxDeltaPct[name]
		c := session.Check{Metric: name, Limit: limit, Bound: "max", Verdict: session.Inconclusive}
		a, okA := s.Counters["a"][name]
		b, okB := s.Counters["b"][name]
		switch {
		case !deterministic(s.CountersMode):
			c.Reason = fmt.Sprintf("%s per response: not gated without deterministic counts (this session counted in %q mode; race with counters \"cachegrind\")", name, s.CountersMode)
		case !okA || !okB || b <= 0:
			c.Reason = fmt.Sprintf("%s per response: not measured on both sides%s", name, why(s, name))
		default:
			delta := counterDelta(a, b)
			c.Delta = ptr(delta)
			c.Reason = fmt.Sprintf("%s per response (cachegrind): %s %.1f vs %s %.1f, delta %+.3f%%%s, limit %+.2f%%",
				name, side(s.A, "A"), a, side(s.B, "B"), b, delta, spread(s, name), limit)
			band := resolutionBand(s.CounterResolution["a"][name], s.CounterResolution["b"][name], b)
			c.Verdict = beyondBand(&c, delta, band, limit)
		}
		d.add(c)
		if name == attributed {
			noteAttribution(d, s, name)
		}
	}
}

// checkCounterExcess applies Thresholds.CounterMaxExcess: A's count may exceed B's by at most
// the limit, in the counter's own unit, for counts whose normal value is zero (a server that
// does not leak grows its RSS by nothing), where a percent of B means nothing. The band is the
// two counts' resolutions, as for the percent limits; a counter neither of a mode of its name
// nor of a session's mode that repeats, or missing on a side, is INCONCLUSIVE.
func checkCounterExcess(d *decision, s *session.Summary) {
	for _, name := range sortedNames(s.Thresholds.CounterMaxExcess) {
		limit := s.Thresholds.CounterMaxExcess[name]
		c := session.Check{Metric: name, Limit: limit, Bound: "max", Verdict: session.Inconclusive}
		a, okA := s.Counters["a"][name]
		b, okB := s.Counters["b"][name]
		switch {
		case !deterministic(name) && !deterministic(s.CountersMode):
			c.Reason = fmt.Sprintf("%s: not gated without deterministic counts (a mode of that name, or the session's %q, that repeats)", name, s.CountersMode)
		case !okA || !okB:
			c.Reason = fmt.Sprintf("%s: not measured on both sides%s", name, why(s, name))
		default:
			excess := a - b
			c.Delta = ptr(excess)
			c.Reason = fmt.Sprintf("%s: %s %.3f vs %s %.3f, A over B %+.3f, limit %+.3f", name, side(s.A, "A"), a, side(s.B, "B"), b, excess, limit)
			c.Verdict = beyondBand(&c, excess, (s.CounterResolution["a"][name]+s.CounterResolution["b"][name])/2, limit)
		}
		d.add(c)
	}
}

// resolutionBand is how far, in percent of count b, a delta between two counts of resolutions
// resA and resB may be off: each count lies within half its resolution of its build's.
func resolutionBand(resA, resB, b float64) float64 {
	return (resA + resB) / 2 / b * 100
}

// beyondBand decides a count's delta against a "max" limit: FAIL only when it exceeds the limit
// by more than band, PASS only when it stays under it by at least band, and says so in c's
// reason otherwise. Within the band it is INCONCLUSIVE where a delta could still be told from
// the limit, and context where the band is wider than the limit itself: there even an
// unchanged build (delta 0) cannot PASS, and a check that cannot decide it must not hold the
// verdict (pipelining 1 on a loaded VM, counts known to ±2.7%: docs/counters.md).
func beyondBand(c *session.Check, delta, band, limit float64) string {
	switch {
	case delta-band > limit:
		return session.Fail
	case delta+band <= limit:
		return session.Pass
	case band > limit:
		c.Reason += fmt.Sprintf(" — the counts resolve ±%.2f%%, wider than the limit itself, so at this shape the check cannot pass an unchanged build: %s, not gated (a delta beyond %+.2f%% would FAIL)", band, WhyResolution, limit+band)
		return session.Context
	}
	c.Reason += fmt.Sprintf(" (within the counts' resolution of the limit: ±%.2f%%; a delta beyond %+.2f%% would FAIL, one under %+.2f%% PASS)", band, limit+band, limit-band)
	return session.Inconclusive
}

// counterDeltas is A's count against B's, in percent, for each counter both sides measured
// with B above 0; nil when there is none.
func counterDeltas(c map[string]map[string]float64) map[string]float64 {
	var out map[string]float64
	for name, a := range c["a"] {
		if b, ok := c["b"][name]; ok && b > 0 {
			if out == nil {
				out = map[string]float64{}
			}
			out[name] = counterDelta(a, b)
		}
	}
	return out
}

// counterDelta is count a against count b (above 0), in percent.
func counterDelta(a, b float64) float64 { return (a - b) / b * 100 }

// spread describes the repetitions behind the counts, e.g. " (3 repetitions per side, spread
// 0.04% / 0.11%)": the noise the limit must stand above.
func spread(s *session.Summary, name string) string {
	a, b := s.CounterSamples["a"][name], s.CounterSamples["b"][name]
	if len(a) < 2 || len(b) < 2 {
		return ""
	}
	if len(a) != len(b) {
		return fmt.Sprintf(" (median of %d / %d repetitions; spread %.3f%% / %.3f%%)", len(a), len(b), rangePct(a), rangePct(b))
	}
	return fmt.Sprintf(" (median of %d repetitions per side; spread %.3f%% / %.3f%%)", len(a), rangePct(a), rangePct(b))
}

// rangePct is (max-min)/min in percent.
func rangePct(xs []float64) float64 {
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo <= 0 {
		return 0
	}
	return (hi - lo) / lo * 100
}

// why returns the session's unsupported reason for a counter, if it recorded one.
func why(s *session.Summary, name string) string {
	if r, ok := s.CountersUnsupported[name]; ok && r != "" {
		return " (" + r + ")"
	}
	if r, ok := s.CountersUnsupported[s.CountersMode]; ok && r != "" {
		return " (" + r + ")"
	}
	return ""
}

func sortedNames(m map[string]float64) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
