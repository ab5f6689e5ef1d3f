package gate

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// Baseline is the entry of a baseline file that matches a session's race.
type Baseline struct {
	Path  string
	File  *session.Baseline
	Entry session.BaselineEntry
}

// buildKeys are the build fields that must agree between a baseline and a session: counts of a
// plain build, or of a release built with another PGO profile, are not the same code's counts.
var buildKeys = []string{"kind", "profile_sha256"}

// MatchBaseline finds b's entry for s and refuses a baseline of another target, build kind,
// PGO profile, counters mode, scenario or shape, naming what differs.
func MatchBaseline(s *session.Summary, b *session.Baseline, path string) (*Baseline, error) {
	var diffs []string
	if b.Target != s.A {
		diffs = append(diffs, fmt.Sprintf("target: baseline %q, session %q", b.Target, s.A))
	}
	for _, k := range buildKeys {
		if bv, sv := b.Build[k], s.SideA.Build[k]; bv != sv {
			diffs = append(diffs, fmt.Sprintf("build %s: baseline %q, session %q", k, bv, sv))
		}
	}
	if b.CountersMode != s.CountersMode {
		diffs = append(diffs, fmt.Sprintf("counters mode: baseline %q, session %q (race with counters \"cachegrind\")", b.CountersMode, s.CountersMode))
	}
	if d := otherCode(b.CPU, s.CountedCPU); d != "" {
		diffs = append(diffs, d)
	}
	if len(diffs) > 0 {
		return nil, fmt.Errorf("baseline %s does not match the session: %s", path, strings.Join(diffs, "; "))
	}
	var have []string
	for _, e := range b.Entries {
		if e.Scenario == s.Scenario && e.Connections == s.Connections && e.Pipelining == s.Pipelining {
			return &Baseline{Path: path, File: b, Entry: e}, nil
		}
		have = append(have, shapeText(e.Scenario, e.Connections, e.Pipelining))
	}
	return nil, fmt.Errorf("baseline %s has no entry for %s (it has: %s)", path,
		shapeText(s.Scenario, s.Connections, s.Pipelining), strings.Join(have, "; "))
}

// otherCode refuses counts whose programs ran other code paths: under valgrind a program picks
// them from the CPUID valgrind shows it, less the features switched off, and hiding AVX2, BMI
// and ERMS moved binding's ping count by 0.7% here (docs/counters.md, "Counts from another
// CPU"), most of the gate's default 1% limit. Counts without a CPU record are compared, and the
// gate says "CPU unknown" (checkBaseline).
func otherCode(base, cur *session.CountedCPU) string {
	if base == nil || cur == nil {
		return ""
	}
	if d := base.RunsOtherCode(cur); d != "" {
		return "CPU: the counted programs ran other code paths (" + d + ", the first the baseline's), so their counts differ by more than code changes do (docs/counters.md, \"Counts from another CPU\"); write a baseline on a machine whose valgrind shows these features"
	}
	return ""
}

func shapeText(scenario string, conns, pipe int) string {
	return fmt.Sprintf("scenario %s, %d connections, pipelining %d", scenario, conns, pipe)
}

// checkBaseline applies Thresholds.CounterMaxGrowthPct to A's counts against the baseline's,
// and notes the throughput of both sessions for reading only: two sessions ran on different
// machine states, so their absolute rates are never gated.
func checkBaseline(d *decision, s *session.Summary, base *Baseline) {
	e := base.Entry
	d.note("counts' CPU: baseline %s; this session %s", base.File.CPU.Describe(), s.CountedCPU.Describe())
	for _, name := range sortedNames(s.Thresholds.CounterMaxGrowthPct) {
		limit := s.Thresholds.CounterMaxGrowthPct[name]
		c := session.Check{Metric: "baseline:" + name, Limit: limit, Bound: "max", Verdict: session.Inconclusive}
		cur, okCur := s.Counters["a"][name]
		old, okOld := e.Counters[name]
		switch {
		case !okCur:
			c.Reason = fmt.Sprintf("%s per response vs baseline: not measured in this session%s", name, why(s, name))
		case !okOld || old <= 0:
			c.Reason = fmt.Sprintf("%s per response vs baseline: the baseline has no %s count", name, name)
		default:
			growth := (cur - old) / old * 100
			c.Delta = ptr(growth)
			c.Reason = fmt.Sprintf("%s per response vs baseline %s: %.1f vs %.1f, growth %+.3f%%, limit %+.2f%%",
				name, base.Path, cur, old, growth, limit)
			band := resolutionBand(s.CounterResolution["a"][name], e.Resolution[name], old)
			c.Verdict = beyondBand(&c, growth, band, limit)
		}
		d.add(c)
		if name == attributed {
			noteAttribution(d, s, c.Metric)
		}
	}
	if e.RPS > 0 && s.StatsA.MedianRPS > 0 {
		d.note("note, not gated: %s throughput %.0f vs %.0f in the baseline's session (%+.1f%%); sessions on other machine states differ by far more than code does, so only counts are compared across them",
			side(s.A, "A"), s.StatsA.MedianRPS, e.RPS, stats.DeltaPct(s.StatsA.MedianRPS, e.RPS))
	}
}

// NewBaseline records the candidate's deterministic counts from a session's races (one entry
// per race). Every race must carry cachegrind counts of A.
func NewBaseline(sums []*session.Summary, from string) (*session.Baseline, error) {
	if len(sums) == 0 {
		return nil, errors.New("no race in the session")
	}
	b := &session.Baseline{SchemaVersion: session.BaselineSchemaVersion, Kind: session.BaselineKind,
		Target: sums[0].A, Build: sums[0].SideA.Build, CountersMode: sums[0].CountersMode,
		Written: time.Now().UTC(), From: from, CPU: sums[0].CountedCPU}
	for _, s := range sums {
		switch {
		case s.Incomplete != "":
			return nil, fmt.Errorf("race %s is incomplete (%s): a baseline needs finished counts", s.Scenario, s.Incomplete)
		case !deterministic(s.CountersMode) || len(s.Counters["a"]) == 0:
			return nil, fmt.Errorf("race %s has no cachegrind counts of %s: race with counters \"cachegrind\"", s.Scenario, s.A)
		case s.A != b.Target:
			return nil, fmt.Errorf("the session's races have different candidates (%s, %s)", b.Target, s.A)
		case otherCode(b.CPU, s.CountedCPU) != "":
			return nil, fmt.Errorf("race %s was counted on another CPU than race %s: %s", s.Scenario, sums[0].Scenario, otherCode(b.CPU, s.CountedCPU))
		}
		var perCPU []float64
		for _, p := range s.Pairs {
			if stats.RunValid(p.A) && p.A.RPSPerCPUSecond > 0 {
				perCPU = append(perCPU, p.A.RPSPerCPUSecond)
			}
		}
		e := session.BaselineEntry{Scenario: s.Scenario, Connections: s.Connections, Pipelining: s.Pipelining,
			CounterShape: s.CounterShape, Counters: s.Counters["a"], Resolution: s.CounterResolution["a"], Breakdowns: s.Breakdowns["a"], RPS: s.StatsA.MedianRPS}
		if len(perCPU) > 0 {
			e.RPSPerCPUSecond = stats.Median(perCPU)
		}
		if sy := s.Syscalls; sy != nil && sy.Unsupported == "" && len(sy.PerResponse["a"]) > 0 {
			e.Syscalls = &session.SyscallBaseline{Kernel: sy.Kernel, N: sy.N, Pipelining: sy.Pipelining, Paced: true, PerResponse: sy.PerResponse["a"]}
		}
		b.Entries = append(b.Entries, e)
	}
	return b, nil
}

// ReadBaseline reads a baseline file, or makes one from a saved race session's counts.
func ReadBaseline(path string) (*session.Baseline, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		sums, err := session.LoadRaceSummaries(path)
		if err != nil {
			return nil, err
		}
		return NewBaseline(sums, path)
	}
	return session.LoadBaseline(path)
}
