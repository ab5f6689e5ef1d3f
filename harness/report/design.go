package report

import (
	"fmt"
	"strings"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/session"
)

// designSection says how the race was planned and decided: the design, how its pairs ended,
// and every look of every statistical check with its interval and decision.
func designSection(d *document, s *session.Summary) {
	ds := s.Design
	if ds == nil {
		return // before schema 3: one look after all pairs, in the checks above
	}
	d.h2("How it was decided")
	if ds.Kind == session.DesignSequential {
		limit := ""
		if ds.MaxTimeS > 0 {
			limit = fmt.Sprintf(", within %s of wall-clock for the whole session", fmtSeconds(ds.MaxTimeS))
		}
		d.p(fmt.Sprintf("Sequential design: a look after every even pair count from %d to at most %d pairs%s. At each look every check's interval is the order statistics the look's bound names; bounds come from the exact binomial distribution with %s per check and direction spent over the looks (Lan-DeMets Pocock-type), so looking after every second pair spends no more than that (docs/statistics.md).",
			ds.MinPairs, ds.MaxPairs, limit, fmtLevel(ds.Alpha)))
	} else {
		d.p(fmt.Sprintf("Fixed design: one look after all %d pairs, %s per check and direction.", ds.MaxPairs, fmtLevel(ds.Alpha)))
	}
	if t := gate.StopText(s); t != "" {
		d.p(strings.ToUpper(t[:1]) + t[1:] + ".")
	}
	if t := setAsideText(s.SetAside); t != "" {
		d.p(t)
	}
	var stat []session.Check
	for _, c := range s.Checks {
		if len(c.Looks) > 0 {
			stat = append(stat, c)
		}
	}
	if len(stat) == 0 {
		return
	}
	head := []string{"look", "pairs", "bound"}
	for _, c := range stat {
		head = append(head, c.Metric)
	}
	var rows [][]string
	for i, n := range ds.Looks {
		row := []string{fmt.Sprint(i + 1), fmt.Sprint(n), boundText(ds.Bounds[i], n)}
		reached := false
		for _, c := range stat {
			cell := ""
			if l := lookAtPairs(c.Looks, n); l != nil {
				reached, cell = true, lookCell(*l)
			}
			row = append(row, cell)
		}
		if !reached && ds.Kind == session.DesignSequential {
			break
		}
		rows = append(rows, row)
	}
	if ds.Kind == session.DesignFixed { // one look, at the pairs the race finished
		rows = [][]string{{"1", fmt.Sprint(stat[0].Looks[0].Pairs), dash}}
		for _, c := range stat {
			rows[0] = append(rows[0], lookCell(c.Looks[0]))
		}
	}
	d.table(head, rows)
	for _, c := range stat {
		if c.Verdict == session.Inconclusive && c.DecidedAt == 0 {
			if c.PairsNeeded > 0 {
				d.p(fmt.Sprintf("%s is undecided: about %d pairs would decide it at this spread.", c.Metric, c.PairsNeeded))
			} else {
				d.p(fmt.Sprintf("%s is undecided: its deltas lean to neither side of its limit.", c.Metric))
			}
		}
	}
}

// boundText is a look's bound: "7 of 8 on one side", or that it can decide nothing yet.
func boundText(c, n int) string {
	if c > n {
		return "none yet"
	}
	return fmt.Sprintf("%d of %d on one side", c, n)
}

func lookAtPairs(ls []session.Look, n int) *session.Look {
	for i := range ls {
		if ls[i].Pairs == n {
			return &ls[i]
		}
	}
	return nil
}

// lookCell is one check's interval at a look, with what the look decided.
func lookCell(l session.Look) string {
	if l.Interval == nil {
		return "no interval yet"
	}
	cell := fmt.Sprintf("[%s, %s]", fmtPct(l.Interval[0]), fmtPct(l.Interval[1]))
	if l.Decision != "" {
		cell += " " + l.Decision
	}
	return cell
}

// setAsideText says how many rounds the steal rule set aside and whose windows were spoiled.
func setAsideText(sa *session.SetAside) string {
	if sa == nil {
		return ""
	}
	if sa.Rounds == 0 {
		return fmt.Sprintf("No round of windows lost more than %g%% of the CPUs' time to the hypervisor (%d rounds measured).", sa.LimitPct, sa.Measured)
	}
	return fmt.Sprintf("%d of %d rounds of windows were set aside and measured again: the hypervisor stole more than %g%% of the CPUs' time during A's window in %d of them, during B's in %d. They stay in the pairs' records, marked, and count in no figure.",
		sa.Rounds, sa.Measured, sa.LimitPct, sa.ByA, sa.ByB)
}
