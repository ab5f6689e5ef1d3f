package kinds

import (
	"context"
	"fmt"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// syscalls counts both sides' system calls per response for race r under the paced client,
// when the profile gates them (a syscall limit): fresh servers, sides alternating, the profile's
// cachegrind_reps per side, each counting counters.DefaultN requests; the medians go in s. A
// machine whose tracepoints are not permitted leaves the reason, so the checks say INCONCLUSIVE
// and why; only an interrupt is returned.
func (cs countStep) syscalls(ctx context.Context, s *session.Summary, r profile.Race, sc scenario.Scenario) error {
	th := cs.p.Thresholds
	if th.SyscallMaxDeltaPct == nil && th.SyscallMaxGrowthPct == nil {
		return nil
	}
	p, rig, ev := cs.p, cs.rig, cs.ev
	sy := &session.SyscallCounts{Kernel: machine.KernelRelease(), N: counters.DefaultN, Pipelining: r.Pipelining, Reps: p.CachegrindReps,
		PerResponse: map[string]map[string]float64{"a": {}, "b": {}}, Samples: map[string][]float64{}}
	s.Syscalls = sy
	if sc.WebSocket() {
		sy.Unsupported = "the paced client is an HTTP one"
		return nil
	}
	per := map[string]map[string][]float64{"a": {}, "b": {}}
	for rep := 1; rep <= sy.Reps; rep++ {
		for _, sd := range []struct{ key, name string }{{"a", s.A}, {"b", s.B}} {
			ev.Emit(measure.Status{Label: fmt.Sprintf("syscalls %s %s", sc.Name, sd.name), Phase: fmt.Sprintf("repetition %d of %d, %d paced requests", rep, sy.Reps, sy.N)})
			res, err := rig.Counter().PacedSyscalls(ctx, sd.name, sc, measure.PacedSyscallOptions{N: sy.N, Pipelining: r.Pipelining})
			switch {
			case err != nil && ctx.Err() != nil:
				return fmt.Errorf("%w while counting %s's system calls", measure.ErrInterrupted, sd.name)
			case err != nil:
				sy.Unsupported = err.Error()
			case res.Table.Unsupported != "":
				sy.Unsupported = res.Table.Unsupported
			}
			if sy.Unsupported != "" {
				ev.Warnf("no system-call counts for %s: %s", sc.Name, sy.Unsupported)
				return nil
			}
			t := res.Table
			add(per[sd.key], rep, "syscalls", t.PerResponse)
			add(per[sd.key], rep, counters.ContextSwitches, t.ContextSwitches)
			for _, row := range t.BySyscall {
				add(per[sd.key], rep, "syscall:"+row.Name, row.PerResponse)
			}
			sy.Samples[sd.key] = append(sy.Samples[sd.key], t.PerResponse)
			ev.Notef("syscalls %s %s: %.3f per response (repetition %d)", sc.Name, sd.name, t.PerResponse, rep)
		}
	}
	for key, byName := range per {
		for name, vs := range byName {
			for len(vs) < sy.Reps { // a call some repetitions did not make
				vs = append(vs, 0)
			}
			sy.PerResponse[key][name] = round.Readable(stats.Median(vs))
		}
	}
	return nil
}

// add appends repetition rep's value of name, counting 0 for the earlier repetitions that had none.
func add(m map[string][]float64, rep int, name string, v float64) {
	vs := m[name]
	for len(vs) < rep-1 {
		vs = append(vs, 0)
	}
	m[name] = append(vs, v)
}
