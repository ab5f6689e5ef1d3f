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
// verdict.
func Regate(dir string, overrides []string, baselinePath string) ([]Regated, string, error) {
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
	var baseFile *session.Baseline
	if baselinePath != "" {
		if baseFile, err = ReadBaseline(baselinePath); err != nil {
			return nil, "", fmt.Errorf("%w: %w", setting.Errorf("{baseline}"), err)
		}
	}
	verdict := session.Pass
	var out []Regated
	for i, d := range dirs {
		s, err := regateOne(d, overrides, baseFile, baselinePath)
		if err != nil {
			return nil, "", err
		}
		out = append(out, Regated{Name: names[i], Summary: s})
		verdict = Worst(verdict, s.Verdict)
	}
	return out, verdict, nil
}

// regateOne re-gates the race session in dir.
func regateOne(dir string, overrides []string, baseFile *session.Baseline, baselinePath string) (*session.Summary, error) {
	path := filepath.Join(dir, session.SummaryFile)
	s, err := session.LoadSummary(path)
	if err != nil {
		return nil, err
	}
	if err := stats.CheckDeltas(path, s); err != nil {
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
