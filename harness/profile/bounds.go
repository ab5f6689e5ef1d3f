package profile

import (
	"github.com/bindrace/bindrace/harness/setting"
)

// nominalRequest is the request size a profile's in-flight memory is reckoned with: the
// scenarios' requests are tens of bytes (json's the largest, under 200).
const nominalRequest = 256

// value is one setting's value, for its bound.
type value struct {
	name string
	v    float64
}

// checkBounds holds every resource the profile sets to its bound on this machine
// (setting.Bounds): what it runs, how long, how many.
func (p *Profile) checkBounds() error {
	vals := []value{
		{"connections", float64(p.Connections)}, {"pipelining", float64(p.Pipelining)},
		{"duration", p.Duration.D().Seconds()}, {"warmup", p.Warmup.D().Seconds()}, {"settle", p.Settle.D().Seconds()},
		{"cooldown", p.Cooldown.D().Seconds()}, {"busy_sample", p.BusySample.D().Seconds()},
		{"rounds", float64(p.Rounds)}, {"windows", float64(p.Windows)}, {"workers", float64(max(p.Workers, 1))},
		{"threads", float64(p.Threads)}, {"warmup_requests", float64(p.WarmupRequests)},
		{"cachegrind_n", float64(p.CachegrindN)}, {"cachegrind_reps", float64(p.CachegrindReps)},
	}
	if sq := p.Sequential; sq != nil {
		vals = append(vals, value{"min_pairs", float64(sq.MinPairs)}, value{"max_pairs", float64(sq.MaxPairs)},
			value{"max_time", sq.MaxTime.D().Seconds()})
	} else {
		vals = append(vals, value{"pairs", float64(p.Pairs)})
	}
	if p.Rate > 0 {
		vals = append(vals, value{"rate", p.Rate})
	}
	for _, c := range vals {
		if err := setting.Check(c.name, c.v); err != nil {
			return err
		}
	}
	for _, r := range p.Races() {
		if err := setting.InFlight(r.Connections, r.Pipelining, nominalRequest); err != nil {
			return err
		}
	}
	return nil
}
