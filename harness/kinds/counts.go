package kinds

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// countableBodyLimit: a scenario whose responses are bigger than this (the 14 MB video) is not
// counted under cachegrind, where every byte copied is simulated: N of them would take hours.
const countableBodyLimit = 1 << 20

// countStep is a race's counts step, before any pair: both sides' deterministic counts on the
// session's rig, and whether one of their checks FAILed.
type countStep struct {
	p      *profile.Profile
	rig    *measure.Rig
	ev     measure.Events
	design *session.Design
}

// count runs the counts the profile asks for into s: cachegrind's, the paced system calls'
// (when limited), the resident set's growth. Only an interrupt is returned.
func (cs countStep) count(ctx context.Context, s *session.Summary, r profile.Race, sc scenario.Scenario, sdir string) error {
	if cs.p.Has(profile.CountersCachegrind) {
		if err := cs.cachegrind(ctx, s, r, sc, sdir); err != nil {
			return err
		}
		if err := cs.syscalls(ctx, s, r, sc); err != nil {
			return err
		}
	}
	if cs.p.Has(counters.ModeRSSGrowth) {
		return cs.rssGrowth(ctx, s, r, sc)
	}
	return nil
}

// rssGrowth counts both sides' resident-set growth per 100k responses (Counter.RSSGrowth) the
// profile's cachegrind_reps times each, the side counted first alternating, and stores the
// medians as counters.RSSGrowth with the median of their resolutions. A side that cannot be
// counted leaves the reason, so the check says INCONCLUSIVE and why.
func (cs countStep) rssGrowth(ctx context.Context, s *session.Summary, r profile.Race, sc scenario.Scenario) error {
	growth, res := map[string][]float64{}, map[string][]float64{}
	for rep := 1; rep <= cs.p.CachegrindReps; rep++ {
		for _, sd := range countOrder(rep, s.A, s.B) {
			g, err := cs.rig.Counter().RSSGrowth(ctx, sd.name, sc, measure.RSSGrowthOptions{Pipelining: r.Pipelining})
			switch {
			case err != nil && ctx.Err() != nil:
				return fmt.Errorf("%w while counting %s's resident set", measure.ErrInterrupted, sd.name)
			case err != nil:
				if s.CountersUnsupported == nil {
					s.CountersUnsupported = map[string]string{}
				}
				s.CountersUnsupported[counters.RSSGrowth] = err.Error()
				cs.ev.Warnf("no rss-growth counts for %s: %v", sc.Name, err)
				return nil
			}
			growth[sd.key], res[sd.key] = append(growth[sd.key], g.GrowthPct), append(res[sd.key], g.ResolutionPct)
			cs.ev.Notef("rss-growth %s %s: %+.3f%% ±%.3f of its resident set per 100k responses (repetition %d)", sc.Name, sd.name, g.GrowthPct, g.ResolutionPct, rep)
		}
	}
	for _, key := range []string{"a", "b"} {
		setCount(&s.Counters, key, counters.RSSGrowth, stats.Median(growth[key]))
		setCount(&s.CounterResolution, key, counters.RSSGrowth, stats.Median(res[key]))
		if s.CounterSamples == nil {
			s.CounterSamples = map[string]map[string][]float64{}
		}
		if s.CounterSamples[key] == nil {
			s.CounterSamples[key] = map[string][]float64{}
		}
		s.CounterSamples[key][counters.RSSGrowth] = growth[key]
	}
	return nil
}

// setCount sets (*m)[key][name] to v, making the maps it needs.
func setCount(m *map[string]map[string]float64, key, name string, v float64) {
	if *m == nil {
		*m = map[string]map[string]float64{}
	}
	if (*m)[key] == nil {
		(*m)[key] = map[string]float64{}
	}
	(*m)[key][name] = v
}

// cachegrind measures both sides' deterministic counts per response for race r (cachegrind,
// the N-then-2N slope, the side counted first alternating: countOrder, Counter.Cachegrind) until
// each side's instruction counts settle — two repetitions within the measurement's resolution,
// or a third, at most Reps — and stores their medians, every repetition and the shape in s. A
// scenario or machine that cannot be counted leaves the reason in s.CountersUnsupported, so the
// instruction check says INCONCLUSIVE and why; only an interrupt is returned (it makes the
// session incomplete). A server that died under valgrind leaves valgrind's log in the session
// directory sdir.
func (cs countStep) cachegrind(ctx context.Context, s *session.Summary, r profile.Race, sc scenario.Scenario, sdir string) error {
	p, rig, ev := cs.p, cs.rig, cs.ev
	s.CountersMode = profile.CountersCachegrind
	s.CounterShape = &session.CounterShape{N: p.CachegrindN, Reps: p.CachegrindReps, Connections: 1, Pipelining: r.Pipelining}
	unsupported := func(why string) error {
		if s.CountersUnsupported == nil {
			s.CountersUnsupported = map[string]string{}
		}
		s.CountersUnsupported[profile.CountersCachegrind] = why
		rig.Unsupported().Mark(profile.CountersCachegrind, why)
		ev.Warnf("no deterministic counts for %s: %s", sc.Name, why)
		return nil
	}
	switch {
	case sc.WebSocket():
		return unsupported("cachegrind counts HTTP scenarios only (its client is an HTTP one)")
	case sc.Want.BodyLen > countableBodyLimit:
		return unsupported(fmt.Sprintf("%s answers %d-byte bodies; simulating their copies takes hours (count it alone: bindrace counters, scenario %s, cachegrind mode, n 20)",
			sc.Name, sc.Want.BodyLen, sc.Name))
	}
	samples := map[string]map[string][]float64{"a": {}, "b": {}}
	fns, files := map[string][]*counters.Breakdown{}, map[string][]*counters.Breakdown{}
	res := map[string][]float64{} // per side, each repetition's resolution of its instruction count
	settled := map[string]bool{}
	for rep := 1; rep <= p.CachegrindReps && !(settled["a"] && settled["b"]); rep++ {
		for _, sd := range countOrder(rep, s.A, s.B) {
			if settled[sd.key] {
				continue
			}
			ev.Emit(measure.Status{Label: fmt.Sprintf("cachegrind %s %s", sc.Name, sd.name), Phase: fmt.Sprintf("repetition %d (at most %d), N=%d then 2N", rep, p.CachegrindReps, p.CachegrindN)})
			cg, err := rig.Counter().Cachegrind(ctx, sd.name, sc, p.CachegrindN, measure.CachegrindOptions{Pipelining: r.Pipelining})
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("%w while counting %s under cachegrind", measure.ErrInterrupted, sd.name)
				}
				return unsupported(keepDeathLog(err, sdir, sd.name))
			}
			for k, v := range counters.RoundMap(cg.PerResponse) {
				samples[sd.key][k] = append(samples[sd.key][k], v)
			}
			res[sd.key] = append(res[sd.key], cg.Resolution[counters.Instructions])
			s.CountedCPU = cg.CPU
			if cg.Functions != nil && cg.Files != nil {
				fns[sd.key], files[sd.key] = append(fns[sd.key], cg.Functions), append(files[sd.key], cg.Files)
			}
			ev.Notef("cachegrind %s %s: %.1f instructions per response, resolution %.1f (repetition %d)", sc.Name, sd.name, cg.PerResponse[counters.Instructions], cg.Resolution[counters.Instructions], rep)
			_, agreed := stats.AgreedCount(samples[sd.key][counters.Instructions], res[sd.key])
			settled[sd.key] = agreed
		}
	}
	// Every counter takes the median of the repetitions the instructions settled on: two that
	// agree (their mean), or three.
	s.Counters = map[string]map[string]float64{"a": {}, "b": {}}
	for key, byName := range samples {
		for k, vs := range byName {
			s.Counters[key][k] = stats.Median(vs)
		}
	}
	s.CounterSamples = samples
	s.CounterResolution = map[string]map[string]float64{}
	for key, rs := range res {
		s.CounterResolution[key] = map[string]float64{counters.Instructions: slices.Min(rs)}
	}
	// Per function and per file, each row's median over the same repetitions: what the gate's
	// attribution of an instruction check subtracts.
	for _, key := range []string{"a", "b"} {
		if b := sideBreakdowns(fns[key], files[key]); b != nil {
			if s.Breakdowns == nil {
				s.Breakdowns = map[string]*session.Breakdowns{}
			}
			s.Breakdowns[key] = b
		}
	}
	return nil
}

// countSide is one side of a race in the counts step: its key in the summary and its target.
type countSide struct{ key, name string }

// countOrder is the order in which repetition rep counts the sides: A first in odd repetitions,
// B first in even ones, as the pairs alternate AB and BA, so neither side always counts first.
// Counted always first, A's count came out under B's in 6 of 7 A/A races (-0.3% to -0.9%;
// docs/counters.md, "Counts that repeat"): the time-driven part of a count depends on what the
// machine did just before, which the order fixes.
func countOrder(rep int, a, b string) []countSide {
	if rep%2 == 0 {
		return []countSide{{"b", b}, {"a", a}}
	}
	return []countSide{{"a", a}, {"b", b}}
}

// keepDeathLog is err's text; when the server died under valgrind (a *counters.DiedError) it
// copies valgrind's log into the session directory as valgrind-<target>.log and the text
// points at the copy: the run's temporary directory is no part of the session.
func keepDeathLog(err error, sdir, target string) string {
	var died *counters.DiedError
	if !errors.As(err, &died) {
		return err.Error()
	}
	b, rerr := os.ReadFile(died.Log)
	kept := filepath.Join(sdir, "valgrind-"+session.SafeName(target)+".log")
	if rerr != nil || session.WriteFile(kept, b) != nil {
		return err.Error()
	}
	return strings.Replace(err.Error(), "valgrind's log: "+died.Log, "valgrind's log: "+kept, 1)
}

// failed names the counts check (instructions, paced system calls) that FAILed in s,
// the counts step's summary, or is "" when none did: such a FAIL decides the race before any
// pair.
func (cs countStep) failed(s *session.Summary) string {
	if s.Counters == nil && s.Syscalls == nil {
		return ""
	}
	c := *s
	c.Thresholds = cs.p.GateThresholds()
	c.Design = cs.design
	gate.Apply(&c, nil)
	var failed []string
	for _, ch := range c.Checks {
		_, counted := c.Thresholds.CounterMaxDeltaPct[ch.Metric]
		_, excess := c.Thresholds.CounterMaxExcess[ch.Metric]
		if (counted || excess || ch.Metric == gate.SyscallMetric) && ch.Verdict == session.Fail {
			failed = append(failed, ch.Metric)
		}
	}
	return strings.Join(failed, " and ")
}
