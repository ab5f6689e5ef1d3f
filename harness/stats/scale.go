package stats

import (
	"fmt"
	"slices"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
)

// ClientBoundShare is the share of its cores above which a load generator may have limited a
// point, and below which a server was not saturated.
const ClientBoundShare = 0.90

// SummarizeScale fills s.BaseThreads and s.Points from s.Runs (stats is their one writer):
// per target and thread count the medians of the valid runs, the speed-up and efficiency
// against the base thread count (1 when run, else the smallest), and the marks.
func SummarizeScale(s *session.Scale) {
	s.Points = nil
	s.BaseThreads = 0
	if len(s.Threads) > 0 {
		s.BaseThreads = slices.Min(s.Threads)
	}
	for _, t := range s.Threads {
		for _, target := range s.Targets {
			s.Points = append(s.Points, scalePoint(s.Runs, target, t))
		}
	}
	for i := range s.Points {
		p := &s.Points[i]
		base := findPoint(s.Points, p.Target, s.BaseThreads)
		if base == nil || base.RPS <= 0 || p.RPS <= 0 {
			continue
		}
		p.SpeedUp = round.To(p.RPS/base.RPS, 2)
		p.EfficiencyPct = round.To(p.RPS/float64(p.Threads)/(base.RPS/float64(base.Threads))*100, 2)
	}
	for _, p := range s.Points {
		if p.Runs == 0 {
			s.Warnings = AppendWarning(s.Warnings, fmt.Sprintf("%s at %d thread(s): no valid run", p.Target, p.Threads))
		}
	}
}

// scalePoint is target's point at t threads from its runs.
func scalePoint(runs []session.ScaleRun, target string, t int) session.ScalePoint {
	p := session.ScalePoint{Target: target, Threads: t}
	var rps, per, cpu, client, p99 []float64
	for _, r := range runs {
		if r.Target != target || r.ServerThreads != t {
			continue
		}
		p.CPUsServer, p.SharedCPUs = r.CPUsServer, r.SharedCPUs
		p.Errors += r.Errors
		if !RunValid(r.Run) {
			continue
		}
		p.Runs++
		rps = append(rps, r.RPS)
		per = append(per, r.RPSPerCPUSecond)
		cpu = append(cpu, r.ServerCPUPct)
		client = append(client, r.ClientCPUPct)
		p99 = append(p99, r.P99Ms)
		if r.ClientCores > 0 && r.ClientCPUPct >= ClientBoundShare*100*float64(r.ClientCores) {
			p.ClientBound = true
		}
	}
	if p.Runs == 0 {
		return p
	}
	p.RPS, p.RPSPerCPUSecond = round.To(Median(rps), 2), round.To(Median(per), 2)
	p.ServerCPUPct, p.ClientCPUPct, p.P99Ms = round.To(Median(cpu), 2), round.To(Median(client), 2), round.To(Median(p99), 2)
	p.ServerUnsaturated = p.ServerCPUPct < ClientBoundShare*100*float64(t)
	return p
}

func findPoint(ps []session.ScalePoint, target string, t int) *session.ScalePoint {
	for i := range ps {
		if ps[i].Target == target && ps[i].Threads == t {
			return &ps[i]
		}
	}
	return nil
}
