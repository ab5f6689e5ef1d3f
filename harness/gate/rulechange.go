package gate

import (
	"fmt"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// ruleP99Changed says what changed for a session saved when a closed loop's p99 still gated.
const ruleP99Changed = "rule changed: a closed-loop p99 is context, not gated, since issue 36 (a saturated closed loop's p99 is its queue over its throughput, a figure of the machine; latency gates at a fixed rate)"

// gatedClosedP99 reports whether a saved closed-loop race was gated on its p99: its stored checks
// hold one (today's gate keeps it in Context).
func gatedClosedP99(s *session.Summary) bool {
	if s.Rate != nil {
		return false
	}
	for _, c := range s.Checks {
		if c.Metric == stats.MetricP99 {
			return true
		}
	}
	return false
}

// noteRuleChange opens the reasons of a re-gated session saved under the old rule with what
// changed and what the old rule, applied to the same pairs and thresholds, says of it. Its
// throughput check keeps the design it was raced with, whose alpha was the share of a budget
// split with p99: stricter than the current rule's, so its verdict keeps its guarantee.
func noteRuleChange(s *session.Summary, base *Baseline) {
	old := decide(s, base, oldP99Rule)
	line := fmt.Sprintf("%s; under the old rule (p99 gated at %+g%%) this session was %s, under the current one %s",
		ruleP99Changed, s.Thresholds.MaxP99DeltaPct, old.verdict, s.Verdict)
	if d := s.Design; d != nil {
		line += fmt.Sprintf("; its checks keep the design it was raced with (%.4g%% per check and direction, a share that counted p99 too: stricter than the current rule needs)", 100*d.Alpha)
	}
	s.Reasons = append([]string{line}, s.Reasons...)
}
