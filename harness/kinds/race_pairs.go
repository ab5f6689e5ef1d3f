package kinds

import (
	"context"
	"fmt"
	"time"

	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// pairsRun is what measuring one race's pairs left: the pairs, every run started (for
// raw.json), why it stopped, and the summary of its last look (nil before any).
type pairsRun struct {
	pairs []session.Pair
	raw   []session.Run
	stop  session.Stop
	last  *session.Summary
}

// pairLoop measures one race's pairs under the session's design: the loop, its looks and their
// progress notes. counts holds what the counts step (countStep) decided before the pairs.
type pairLoop struct {
	rs      *raceSession
	r       profile.Race
	counts  *session.Summary
	prefix  string
	started time.Time
	out     pairsRun
}

// measurePairs measures the pairs of race r, AB and BA alternating, until its design says stop:
// a fixed design after its pairs; a sequential one at the first look (an even pair count from
// min_pairs on) where every check is decided or one FAILed (gate.Settled), at its last look, or
// before a pair of pairs the race's share of the session's time cannot hold. Counts decided
// before the pairs (s, from the counts step) are gated with them at every look. On an interrupt or
// a dead or broken target it stops and returns what it has, a half-measured pair included (its
// missing run carrying the error).
func (rs *raceSession) measurePairs(ctx context.Context, r profile.Race, s *session.Summary, prefix string, first bool, until time.Time) (pairsRun, error) {
	pl := &pairLoop{rs: rs, r: r, counts: s, prefix: prefix, started: time.Now()}
	return pl.run(ctx, first, until)
}

func (pl *pairLoop) run(ctx context.Context, first bool, until time.Time) (pairsRun, error) {
	d, rs := pl.rs.design, pl.rs
	pl.out.stop = session.Stop{Reason: session.StopPlanned}
	if d.Kind == session.DesignSequential {
		pl.out.stop.Reason = session.StopMaxPairs
	}
	for i := 0; i < d.MaxPairs; i++ {
		if i%2 == 0 && i > 0 && !until.IsZero() && time.Now().Add(2*pl.pace()).After(until) {
			pl.out.stop.Reason = session.StopMaxTime
			break
		}
		if i > 0 || !first { // a cooldown between every two pairs of the session
			if err := rs.st.rig.Cooldown(ctx, fmt.Sprintf("%spair %d", pl.prefix, i)); err != nil {
				return pl.cutShort(err)
			}
		}
		p, runs, err := pl.measurePair(ctx, i)
		pl.out.pairs, pl.out.raw = append(pl.out.pairs, p), append(pl.out.raw, runs...)
		if err != nil {
			return pl.cutShort(err)
		}
		if d.Kind == session.DesignSequential && isLook(d, i+1) {
			pl.out.last = pl.look()
			pl.reportLook()
			if gate.Settled(pl.out.last) {
				pl.out.stop.Reason = session.StopDecided
				break
			}
		}
	}
	pl.out.stop.Pairs, pl.out.stop.ElapsedS = len(pl.out.pairs), round.To(time.Since(pl.started).Seconds(), 2)
	return pl.out, nil
}

// cutShort records a race cut short between looks: INCOMPLETE, with what it measured.
func (pl *pairLoop) cutShort(err error) (pairsRun, error) {
	pl.out.stop = session.Stop{Reason: session.StopInterrupted, Pairs: len(pl.out.pairs), ElapsedS: round.To(time.Since(pl.started).Seconds(), 2)}
	return pl.out, err
}

// isLook reports whether the design looks after n pairs.
func isLook(d *session.Design, n int) bool {
	for _, l := range d.Looks {
		if l == n {
			return true
		}
	}
	return false
}

// look summarizes and gates the pairs so far, with the counts measured before them.
func (pl *pairLoop) look() *session.Summary {
	o := pl.rs.o
	l := stats.Summarize(pl.out.pairs, o.Profile.RaceThresholds(pl.r), pl.rs.design)
	l.Counts = pl.counts.Counts
	l.DecideOn, l.A, l.B = o.Profile.DecideOn, o.A, o.B
	gate.Apply(&l, nil)
	return &l
}

// reportLook notes the last look: each statistical check's interval and decision, and for an
// undecided one the pairs it would take if its deltas went on as they have.
func (pl *pairLoop) reportLook() {
	s := pl.out.last
	line := fmt.Sprintf("%slook at %d pairs:", pl.prefix, len(s.Pairs))
	for _, c := range s.Checks {
		if len(c.Looks) == 0 {
			continue
		}
		l := c.Looks[len(c.Looks)-1]
		switch {
		case l.Interval == nil:
			line += fmt.Sprintf(" %s no interval yet;", c.Metric)
		case c.DecidedAt > 0:
			line += fmt.Sprintf(" %s [%+.2f%%, %+.2f%%] %s;", c.Metric, l.Interval[0], l.Interval[1], c.Verdict)
		default:
			line += fmt.Sprintf(" %s [%+.2f%%, %+.2f%%] vs %+.2f%%", c.Metric, l.Interval[0], l.Interval[1], c.Limit)
			if n := stats.PairsToDecide(pl.rs.design, stats.EvidenceOf(s.Pairs, c.Metric), c.Limit); n > 0 {
				line += fmt.Sprintf(", decided by about %d pairs at this rate", n)
			} else {
				line += ", not within this design's pairs at this rate"
			}
			line += ";"
		}
	}
	pl.rs.o.Events.Notef("%s", line[:len(line)-1])
}

// pace is how long a pair takes here: the mean of the pairs so far, or, before any, the plan's
// own estimate (firstPace).
func (pl *pairLoop) pace() time.Duration {
	if len(pl.out.pairs) == 0 {
		return pl.rs.firstPace
	}
	return time.Since(pl.started) / time.Duration(len(pl.out.pairs))
}

// measurePair measures pair i (PairOrder(i)) and returns it and the runs it started (for
// raw.json). Its progress label carries the last look's throughput interval.
func (pl *pairLoop) measurePair(ctx context.Context, i int) (session.Pair, []session.Run, error) {
	rs, r := pl.rs, pl.r
	order := PairOrder(i)
	names := [2]string{rs.o.A, rs.o.B}
	if order == "BA" {
		names = [2]string{rs.o.B, rs.o.A}
	}
	label := fmt.Sprintf("%spair %d/%s %s", pl.prefix, i+1, pairsText(rs.design), order)
	if iv := lastInterval(pl.out.last); iv != "" {
		label += " (" + iv + ")"
	}
	var seq [2]measure.Spec
	for slot, name := range names {
		seq[slot] = measure.Spec{Target: name, Scenario: rs.byName[r.Scenario], Connections: r.Connections, Pipelining: r.Pipelining,
			Rate: r.Rate, Slot: slot, Label: label + " " + name}
	}
	runs, err := rs.st.rig.Pair(ctx, seq, setAsideSpoiled(rs.o.Profile.StealLimitPct, rs.pl.Windows))
	p := session.Pair{Index: i, Order: order}
	var raw []session.Run
	for slot, run := range runs {
		if (order == "AB") == (slot == 0) {
			p.A = run.Record
		} else {
			p.B = run.Record
		}
		if run.Ran {
			raw = append(raw, run.Record)
		}
	}
	if err != nil {
		rs.o.Events.Notef("%s: %v", label, err)
	}
	return p, raw, err
}

// pairsText is the pair count a progress label shows: "12" in a fixed design, "≤30" in a
// sequential one.
func pairsText(d *session.Design) string {
	if d.Kind == session.DesignSequential {
		return fmt.Sprintf("≤%d", d.MaxPairs)
	}
	return fmt.Sprint(d.MaxPairs)
}

// lastInterval is the last look's throughput interval for the progress line ("rps [+2.1%,
// +9.8%]"), or "".
func lastInterval(s *session.Summary) string {
	if s == nil {
		return ""
	}
	for _, c := range s.Checks {
		if len(c.Looks) > 0 && c.Interval != nil && (c.Metric == stats.MetricRPS || c.Metric == stats.MetricRPSPerCPUSec) {
			return fmt.Sprintf("%s [%+.1f%%, %+.1f%%]", c.Metric, c.Interval[0], c.Interval[1])
		}
	}
	return ""
}

// setAsideSpoiled is the pair hook that sets aside the rounds the hypervisor spoiled
// (stats.Spoiled over the partner windows' steal beyond limit), measured again up to windows
// more per pair.
func setAsideSpoiled(limit float64, windows int) measure.PairOptions {
	if limit < 0 {
		return measure.PairOptions{}
	}
	return measure.PairOptions{MaxExtraRounds: max(windows, 1), AfterRound: func(r measure.Round) string {
		a, b := r.Windows[0].Machine, r.Windows[1].Machine
		if a == nil || b == nil || !stats.Spoiled(a.StealPct, b.StealPct, limit) {
			return ""
		}
		return fmt.Sprintf("steal %.1f%% / %.1f%% of the CPUs' time, over %g%%", a.StealPct, b.StealPct, limit)
	}}
}

// setAsideOf counts the rounds a race's pairs set aside for steal over limitPct, and whose
// window was over it (nil when the rule was off).
func setAsideOf(pairs []session.Pair, limitPct float64) *session.SetAside {
	if limitPct < 0 {
		return nil
	}
	sa := &session.SetAside{LimitPct: limitPct}
	for _, p := range pairs {
		for w := 0; w < len(p.A.PerWindow) && w < len(p.B.PerWindow); w++ {
			a, b := p.A.PerWindow[w], p.B.PerWindow[w]
			sa.Measured++
			if a.SetAside == "" {
				continue
			}
			sa.Rounds++
			if a.StealPct > limitPct {
				sa.ByA++
			}
			if b.StealPct > limitPct {
				sa.ByB++
			}
		}
	}
	return sa
}
