package gate

import (
	"sort"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
)

// checkCounters applies Thresholds.CounterMaxGrowthPct: for each named counter, A's per-response
// value may grow by at most the given percent over the baseline session's A value.
//
// Only ratios of per-response counts are gated: they are properties of the code, and in
// cachegrind mode repeat to about 0.1%. A limit on a time-like counter (task-clock, anything in
// ns or seconds) is refused as INCONCLUSIVE, since times depend on the machine and moment. A
// counter missing on either side, unsupported, or a baseline measured in another counters mode
// (perf vs cachegrind count different things) is INCONCLUSIVE, never a silent pass.
//
// Without a baseline there is nothing to compare against: that is stated as a reason and does
// not change the verdict, so a race without --baseline is judged on its own figures.
func checkCounters(d *decision, s *session.Summary, baseline *session.Summary) {
	limits := s.Thresholds.CounterMaxGrowthPct
	if len(limits) == 0 {
		return
	}
	names := make([]string, 0, len(limits))
	for n := range limits {
		names = append(names, n)
	}
	sort.Strings(names)
	if baseline == nil {
		d.note("counters: limits on %s not checked: no baseline session given", strings.Join(names, ", "))
		return
	}
	if s.CountersMode != "" && baseline.CountersMode != "" && s.CountersMode != baseline.CountersMode {
		d.inconclusive("counters: this session measured in %s mode, the baseline in %s mode; their counts are not comparable",
			s.CountersMode, baseline.CountersMode)
		return
	}
	for _, name := range names {
		limit := limits[name]
		if timeLike(name) {
			d.inconclusive("counter %s: a time, not a deterministic count; never gated across sessions", name)
			continue
		}
		cur, okCur := s.Counters["a"][name]
		base, okBase := baseline.Counters["a"][name]
		switch {
		case !okCur:
			d.inconclusive("counter %s: missing in this session%s", name, why(s, name))
			continue
		case !okBase:
			d.inconclusive("counter %s: missing in the baseline%s", name, why(baseline, name))
			continue
		case base <= 0:
			d.inconclusive("counter %s: baseline value %.4g cannot be grown from", name, base)
			continue
		}
		growth := (cur - base) / base * 100
		if growth > limit {
			d.fail("counter %s per response: %.4g vs baseline %.4g, growth %+.2f%%, limit %+.2f%%", name, cur, base, growth, limit)
		} else {
			d.pass("counter %s per response: %.4g vs baseline %.4g, growth %+.2f%%, limit %+.2f%%", name, cur, base, growth, limit)
		}
	}
}

// why returns the session's unsupported reason for a counter, if it recorded one.
func why(s *session.Summary, name string) string {
	if r, ok := s.CountersUnsupported[name]; ok && r != "" {
		return " (unsupported: " + r + ")"
	}
	return ""
}

// timeLike spots counters measured in time rather than counted events.
func timeLike(name string) bool {
	n := strings.ToLower(name)
	for _, t := range []string{"clock", "time", "_ns", "-ns", "nsec", "seconds", "_ms", "-ms"} {
		if strings.Contains(n, t) {
			return true
		}
	}
	return false
}
