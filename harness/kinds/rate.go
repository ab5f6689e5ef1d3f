package kinds

import (
	"context"
	"fmt"
	"math"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
)

// raceRate is the rate a race offers both of its sides: nil for a closed loop.
type raceRate struct{ rec *session.Rate }

// RPS is the rate in requests per second; 0 for a closed loop.
func (r raceRate) RPS() float64 {
	if r.rec == nil {
		return 0
	}
	return r.rec.RPS
}

// Record is what summary.json says of the rate; nil for a closed loop.
func (r raceRate) Record() *session.Rate { return r.rec }

// raceRate chooses the rate of race r: the profile's absolute rate, or its rate_fraction of the
// LOWER of the two sides' closed-loop maxima, each measured here in one closed-loop run at r's
// connections and pipelining. Both sides are offered the same rate, so neither is asked for more
// than the slower one can serve at that fraction. It returns the maxima's runs too, for
// raw.json; an error is one of them failing.
func (rs *raceSession) raceRate(ctx context.Context, r profile.Race, prefix string) (raceRate, []session.Run, error) {
	p := rs.o.Profile
	switch {
	case p.Rate > 0:
		return raceRate{&session.Rate{RPS: p.Rate}}, nil, nil
	case p.RateFraction <= 0:
		return raceRate{}, nil, nil
	}
	sc := rs.byName[r.Scenario]
	var maxima [2]float64
	var runs []session.Run
	for i, name := range []string{rs.o.A, rs.o.B} {
		run, err := closedMax(ctx, rs.st.rig, name, sc, r, prefix)
		runs = append(runs, run)
		if err != nil {
			return raceRate{}, runs, err
		}
		maxima[i] = run.RPS
	}
	rec := &session.Rate{Fraction: p.RateFraction, MaxA: round.To(maxima[0], 2), MaxB: round.To(maxima[1], 2)}
	rec.RPS = math.Round(p.RateFraction * min(maxima[0], maxima[1]))
	rs.o.Events.Notef("%srate: %g × the lower closed-loop maximum (%s %s, %s %s) = %s requests/s for both sides",
		prefix, p.RateFraction, rs.o.A, thousands(maxima[0]), rs.o.B, thousands(maxima[1]), thousands(rec.RPS))
	return raceRate{rec}, runs, nil
}

// closedMax measures target's closed-loop throughput in one run at r's connections and
// pipelining (a fresh process, the plan's warm-up and window), then cools down: the maximum an
// open loop's rate fraction is taken of (Run.RPS).
func closedMax(ctx context.Context, rig *measure.Rig, target string, sc scenario.Scenario, r profile.Race, prefix string) (session.Run, error) {
	label := fmt.Sprintf("%sclosed-loop maximum %s", prefix, target)
	run, err := rig.Run(ctx, measure.Spec{Target: target, Scenario: sc, Connections: r.Connections, Pipelining: r.Pipelining, Label: label})
	switch {
	case err != nil:
		return run.Record, err
	case run.Record.RPS <= 0:
		return run.Record, fmt.Errorf("%s: no response in the closed-loop run, so no rate can be taken of its maximum", target)
	}
	return run.Record, rig.Cooldown(ctx, label)
}

// thousands formats a number with thousands separators: 482113.4 -> "482,113".
func thousands(v float64) string { return load.GroupThousands(int64(math.Round(v))) }
