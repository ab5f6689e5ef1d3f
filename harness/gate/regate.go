package gate

import (
	"fmt"
	"path/filepath"

	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/stats"
)

// Worst orders verdicts INCOMPLETE > FAIL > INCONCLUSIVE > PASS.
func Worst(a, b string) string {
	rank := func(v string) int {
		switch v {
		case session.Pass:
			return 0
		case session.Inconclusive:
			return 1
		case session.Fail:
			return 2
		default:
			return 3
		}
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// Regated is one race of a saved session after Regate: Name is its sub-race's name in a race
// set ("" for a single race).
type Regated struct {
	Name    string
	Summary *session.Summary
}

// Regate re-applies the gate to a saved race session, or to each sub-session of a race set:
// the thresholds stored in the session, with overrides written over them (as race's
// --threshold: a number is min_median_delta_pct, or name=value), and, when baselinePath is not
// "", the candidate's deterministic counts held to that baseline (a file written by `bindrace
// baseline write`, or a saved session directory). It returns every race re-gated and the worst
// verdict, a pooled set's pooled check (PoolOf) counted in it.
//
// With pool, the races of a set are re-gated as a pooled profile gates them (profile "pooled"):
// each race's throughput check becomes a FAIL-only guard at its share of half the budget, and
// the pooled check over all of them has the other half. A set saved before its profile pooled
// can so be read as it would be gated now; fixed designs only, as a pooled profile's.
func Regate(dir string, overrides []string, baselinePath string, pool bool) ([]Regated, string, error) {
	kind, err := session.Kind(dir)
	if err != nil {
		return nil, "", err
	}
	var names, dirs []string
	switch kind {
	case "race":
		names, dirs = []string{""}, []string{session.DirOf(dir)}
	case "race-set":
		ix, err := session.LoadIndex(dir)
		if err != nil {
			return nil, "", err
		}
		for _, e := range ix.Sessions {
			names, dirs = append(names, e.Name), append(dirs, filepath.Join(session.DirOf(dir), e.Dir))
		}
	default:
		return nil, "", fmt.Errorf("%s is a %s session: the gate applies to races", dir, kind)
	}
	if pool && len(dirs) < 2 {
		return nil, "", setting.Errorf("{pool} pools the races of a race set; %s is a single race", dir)
	}
	var baseFile *session.Baseline
	if baselinePath != "" {
		if baseFile, err = ReadBaseline(baselinePath); err != nil {
			return nil, "", fmt.Errorf("%w: %w", setting.Errorf("{baseline}"), err)
		}
	}
	verdict := session.Pass
	var out []Regated
	for i, d := range dirs {
		s, err := regateOne(d, overrides, baseFile, baselinePath, pooledRaces(pool, len(dirs)))
		if err != nil {
			return nil, "", err
		}
		out = append(out, Regated{Name: names[i], Summary: s})
		verdict = Worst(verdict, s.Verdict)
	}
	if c := PoolOf(out); c != nil {
		verdict = Worst(verdict, c.Verdict)
	}
	return out, verdict, nil
}

// PoolOf is the pooled check of a re-gated pooled race set (Pool), nil when it is not pooled.
func PoolOf(rs []Regated) *session.Check {
	sums := make([]*session.Summary, len(rs))
	for i, r := range rs {
		sums[i] = r.Summary
	}
	return Pool(sums)
}

// regateOne re-gates the race session in dir.
func regateOne(dir string, overrides []string, baseFile *session.Baseline, baselinePath string, races int) (*session.Summary, error) {
	path := filepath.Join(dir, session.SummaryFile)
	s, err := session.LoadSummary(path)
	if err != nil {
		return nil, err
	}
	if err := stats.CheckDeltas(path, s); err != nil {
		return nil, err
	}
	if err := repool(s, path, races); err != nil {
		return nil, err
	}
	stats.Redesign(s)
	if len(overrides) > 0 {
		p := profile.Default()
		p.Thresholds = s.Thresholds
		for _, t := range overrides {
			if err := p.Set().Threshold(t); err != nil {
				return nil, err
			}
		}
		s.Thresholds = p.Thresholds
	}
	var base *Baseline
	if baseFile != nil {
		if base, err = MatchBaseline(s, baseFile, baselinePath); err != nil {
			return nil, err
		}
	}
	ruleChanged := gatedClosedP99(s)
	Apply(s, base)
	if ruleChanged {
		noteRuleChange(s, base)
	}
	return s, nil
}

// pooledRaces is the number of races a re-gate pools (0: none).
func pooledRaces(pool bool, races int) int {
	if pool {
		return races
	}
	return 0
}

// repool makes s, saved from path, one of races pooled races: a guard at its share of half the
// family's budget, its looks redrawn at that level by Redesign. A race already pooled keeps its
// design; a sequential one is refused (its looks stopped on its own checks).
func repool(s *session.Summary, path string, races int) error {
	if races == 0 || s.Pooled {
		return nil
	}
	if s.Design != nil && s.Design.Kind != session.DesignFixed {
		return setting.Errorf("{pool}: %s is a sequential race; only fixed designs pool pair by pair", path)
	}
	if !(s.FamilyConfidence >= 0.5 && s.FamilyConfidence < 1) {
		return setting.Errorf("{pool}: %s records no family confidence (%g) to split", path, s.FamilyConfidence)
	}
	alpha := profile.PooledAlpha(s.FamilyConfidence) / float64(races)
	s.Pooled, s.FallibleChecks = true, races+1
	s.Design, s.CILevel = nil, 1-2*alpha
	s.Warnings = stats.AppendWarning(s.Warnings, fmt.Sprintf(
		"re-gated pooled, as a profile with \"pooled\" gates: throughput is a FAIL-only guard here at %.4g%%, and the set's pooled check over %d races decides it", 100*alpha, races))
	return nil
}
