package stats

import "github.com/bindrace/bindrace/harness/session"

// A client-bound run (its server used less than 90% of the CPU it was allotted: the load
// generator, not the server, set the pace) can only hide the headroom it had. Its bound is its
// throughput scaled to a saturated server, rps / saturation: a server at 88% could have served
// at most 1/0.88 = 1.14 times as much, if its CPU per response stayed what it was. (Batching
// can make a busier server cheaper per response, so the bound is an estimate, not a proof; a
// profile that needs none decides on responses per server CPU-second.)
//
// A throughput verdict stands only if it holds with each such run replaced by its bound: a PASS
// with B's client-bound runs raised to their bounds (B may have been that much faster), a FAIL
// with A's. The interval a throughput check reports is therefore the one of those two
// pessimistic views, [low end with B bounded, high end with A bounded]: it contains the plain
// interval, and the check reads PASS or FAIL off it as off any other.

// ClientBoundSaturation is the share of its allotted CPU under which a server was not
// saturated during a run.
const ClientBoundSaturation = 0.90

// saturation is the share of its allotted CPU r's server used: recorded since schema 3; before,
// the server's CPU % of one core (the server had one CPU in every profile that ran then).
func saturation(r session.Run) float64 {
	if r.SaturationPct > 0 {
		return r.SaturationPct / 100
	}
	return r.ServerCPUPct / 100
}

// atBound is r with its throughput raised to its bound when it was client-bound.
func atBound(r session.Run) session.Run {
	f := saturation(r)
	if !r.ClientBound || f <= 0 || f >= 1 {
		return r
	}
	r.RPS /= f
	if len(r.Windows) > 0 {
		w := make([]float64, len(r.Windows))
		for i, x := range r.Windows {
			w[i] = x / f
		}
		r.Windows = w
	}
	return r
}

// boundedPairs are pairs with one side's client-bound runs at their bounds ("a" or "b"), and
// how many runs that changed.
func boundedPairs(pairs []session.Pair, side string) ([]session.Pair, int) {
	out := make([]session.Pair, len(pairs))
	n := 0
	for i, p := range pairs {
		r := &p.A
		if side == "b" {
			r = &p.B
		}
		if PairValid(p) && r.ClientBound {
			*r = atBound(*r)
			n++
		}
		out[i] = p
	}
	return out, n
}
