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
		diffs = append(diffs, fmt.Sprintf("counters mode: baseline %q, session %q (race with --counters cachegrind)", b.CountersMode, s.CountersMode))
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

func shapeText(scenario string, conns, pipe int) string {
	return fmt.Sprintf("scenario %s, %d connections, pipelining %d", scenario, conns, pipe)
}

// checkBaseline applies Thresholds.CounterMaxGrowthPct to A's counts against the baseline's,
// and notes the throughput of both sessions for reading only: two sessions ran on different
// machine states, so their absolute rates are never gated.
func checkBaseline(d *decision, s *session.Summary, base *Baseline) {
	e := base.Entry
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
			c.Verdict = session.Pass
			if growth > limit {
				c.Verdict = session.Fail
			}
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
		Written: time.Now().UTC(), From: from}
	for _, s := range sums {
		switch {
		case s.Incomplete != "":
			return nil, fmt.Errorf("race %s is incomplete (%s): a baseline needs finished counts", s.Scenario, s.Incomplete)
		case s.CountersMode != Deterministic || len(s.Counters["a"]) == 0:
			return nil, fmt.Errorf("race %s has no cachegrind counts of %s: race with --counters cachegrind (or a profile with \"counters\": \"cachegrind\")", s.Scenario, s.A)
		case s.A != b.Target:
			return nil, fmt.Errorf("the session's races have different candidates (%s, %s)", b.Target, s.A)
		}
		var perCPU []float64
		for _, p := range s.Pairs {
			if stats.RunValid(p.A) && p.A.RPSPerCPUSecond > 0 {
				perCPU = append(perCPU, p.A.RPSPerCPUSecond)
			}
		}
		e := session.BaselineEntry{Scenario: s.Scenario, Connections: s.Connections, Pipelining: s.Pipelining,
			CounterShape: s.CounterShape, Counters: s.Counters["a"], Breakdowns: s.Breakdowns["a"], RPS: s.StatsA.MedianRPS}
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
