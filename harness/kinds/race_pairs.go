package kinds

import (
	"context"
	"fmt"

	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
)

// measurePairs measures the pairs of race r: the profile's count, AB and BA alternating, with a
// cooldown between pairs. It is the race's whole loop over pairs, so a sequential rule (look
// after every even pair count, stop once decided) can stand in for it. On an interrupt or a
// dead or broken target it stops and returns what it has, a half-measured pair included (its
// missing run carrying the error).
func (rs *raceSession) measurePairs(ctx context.Context, r profile.Race, prefix string, lastRace bool) ([]session.Pair, []session.Run, error) {
	var pairs []session.Pair
	var raw []session.Run
	for i := 0; i < rs.pairs; i++ {
		p, runs, label, err := rs.measurePair(ctx, r, i, prefix)
		pairs, raw = append(pairs, p), append(raw, runs...)
		if err == nil && !(lastRace && i == rs.pairs-1) {
			err = rs.st.rig.Cooldown(ctx, label)
		}
		if err != nil {
			return pairs, raw, err
		}
	}
	return pairs, raw, nil
}

// measurePair measures pair i of race r (PairOrder(i)) and returns it, the runs it started (for
// raw.json) and its last run's label.
func (rs *raceSession) measurePair(ctx context.Context, r profile.Race, i int, prefix string) (session.Pair, []session.Run, string, error) {
	order := PairOrder(i)
	names := [2]string{rs.o.A, rs.o.B}
	if order == "BA" {
		names = [2]string{rs.o.B, rs.o.A}
	}
	label := fmt.Sprintf("%spair %d/%d %s", prefix, i+1, rs.pairs, order)
	var seq [2]measure.Spec
	for slot, name := range names {
		seq[slot] = measure.Spec{Target: name, Scenario: rs.byName[r.Scenario], Connections: r.Connections, Pipelining: r.Pipelining,
			Rate: r.Rate, Slot: slot, Label: label + " " + name}
	}
	runs, err := rs.st.rig.Pair(ctx, seq, rs.o.Rounds)
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
	return p, raw, seq[1].Label, err
}
