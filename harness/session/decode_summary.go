package session

import (
	"fmt"
	"sort"
)

// oldestSchema is the oldest summary.json layout this bindrace reads: version 1 predates the
// schema_version field, and no saved session of it is left.
const oldestSchema = 2

// DecodeSummary decodes and checks summary.json of a race, read from path. Besides the shape of
// every value (decodeObject), it refuses a summary whose figures do not follow from its own
// pairs, since the gate and the reports trust them: wins must be the valid pairs A won, no
// paired metric may rest on more pairs than are valid, and the throughput's median, minimum and
// maximum are those of the valid pairs' deltas. A session whose runs all measured nothing thus
// cannot be read as a win, and pairs: [] cannot carry "12 pairs won".
func DecodeSummary(path string, b []byte) (*Summary, error) {
	var s Summary
	if err := decodeObject(path, b, &s); err != nil {
		return nil, err
	}
	if s.Kind != "race" {
		if s.Kind == "" {
			return nil, refuse(path, "kind", "missing (want race)")
		}
		return nil, fmt.Errorf("%s is a %s session, not a race", path, s.Kind)
	}
	for _, check := range []func(string, *Summary) error{checkVersion, checkDecision, checkPairs, checkPaired, checkDesign} {
		if err := check(path, &s); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

func checkVersion(path string, s *Summary) error {
	return checkSchema(path, s.SchemaVersion, oldestSchema, SchemaVersion)
}

// checkDecision: the verdicts are ones the gate gives.
func checkDecision(path string, s *Summary) error {
	if err := oneOf(path, "verdict", s.Verdict, Pass, Fail, Inconclusive, Incomplete); err != nil {
		return err
	}
	for i, c := range s.Checks {
		if err := oneOf(path, fmt.Sprintf("checks[%d].verdict", i), c.Verdict, Pass, Fail, Inconclusive); err != nil {
			return err
		}
	}
	for i, c := range s.Context {
		if err := oneOf(path, fmt.Sprintf("context[%d].verdict", i), c.Verdict, Context); err != nil {
			return err
		}
	}
	if s.CILevel <= 0 || s.CILevel > 1 {
		return refuse(path, "ci_level", "%g is not a level above 0 and at most 1", s.CILevel)
	}
	return nil
}

// checkDesign: the looks the gate walks are a plan it can walk (schema 3; absent before).
func checkDesign(path string, s *Summary) error {
	if st := s.Stop; st != nil {
		if err := oneOf(path, "stop.reason", st.Reason, StopDecided, StopMaxPairs, StopMaxTime, StopPlanned, StopInterrupted, StopSessionFail, ""); err != nil {
			return err
		}
		if st.Pairs != len(s.Pairs) {
			return refuse(path, "stop.pairs", "%d, but the summary holds %d pairs", st.Pairs, len(s.Pairs))
		}
	}
	d := s.Design
	if d == nil {
		return nil
	}
	if err := oneOf(path, "design.kind", d.Kind, DesignFixed, DesignSequential); err != nil {
		return err
	}
	if d.Alpha < 0 || d.Alpha >= 0.5 {
		return refuse(path, "design.alpha", "%g is not an error rate from 0 to under 0.5", d.Alpha)
	}
	n, last := len(d.Looks), 0
	if len(d.Bounds) != n || len(d.Spent) != n {
		return refuse(path, "design.looks", "%d looks with %d bounds and %d spent: want one of each per look", n, len(d.Bounds), len(d.Spent))
	}
	for i, l := range d.Looks {
		if l <= last {
			return refuse(path, fmt.Sprintf("design.looks[%d]", i), "%d: looks are pair counts, rising from 1", l)
		}
		last = l
	}
	if last != d.MaxPairs || d.MinPairs > d.MaxPairs {
		return refuse(path, "design.max_pairs", "%d, but the last look is at %d pairs (min_pairs %d)", d.MaxPairs, last, d.MinPairs)
	}
	return nil
}

// checkPairs: each pair's runs hold sane figures, and wins are the valid pairs A won.
func checkPairs(path string, s *Summary) error {
	won := 0
	for i, p := range s.Pairs {
		field := fmt.Sprintf("pairs[%d]", i)
		if err := oneOf(path, field+".order", p.Order, "AB", "BA"); err != nil {
			return err
		}
		if err := checkRun(path, field+".a", p.A); err != nil {
			return err
		}
		if err := checkRun(path, field+".b", p.B); err != nil {
			return err
		}
		if p.Valid() && p.DeltaPct > 0 {
			won++
		}
	}
	if s.Wins != won {
		return refuse(path, "wins", "%d, but its pairs say %d: %d of %d pairs are valid (both runs finished with throughput above 0) and A won %d of them",
			s.Wins, won, validPairs(s.Pairs), len(s.Pairs), won)
	}
	return nil
}

func validPairs(pairs []Pair) int {
	n := 0
	for _, p := range pairs {
		if p.Valid() {
			n++
		}
	}
	return n
}

// checkPaired: no paired metric rests on more pairs than are valid; the throughput's rests on
// all of them, and its median, minimum and maximum are those of their deltas.
func checkPaired(path string, s *Summary) error {
	valid := validPairs(s.Pairs)
	metrics := make([]string, 0, len(s.Paired))
	for m := range s.Paired {
		metrics = append(metrics, m)
	}
	sort.Strings(metrics)
	for _, m := range metrics {
		if err := checkOnePaired(path, "paired."+m, s.Paired[m], valid); err != nil {
			return err
		}
	}
	rps, ok := s.Paired["rps"]
	switch {
	case !ok && valid > 0:
		return refuse(path, "paired.rps", "missing, but %d pairs are valid", valid)
	case !ok && s.MedianDeltaPct != 0:
		return refuse(path, "median_delta_pct", "%g with no valid pair", s.MedianDeltaPct)
	case !ok:
		return nil
	case rps.N != valid:
		return refuse(path, "paired.rps.n", "%d, but %d of its pairs are valid", rps.N, valid)
	case s.MedianDeltaPct != rps.MedianPct:
		return refuse(path, "median_delta_pct", "%g, but paired.rps.median_pct is %g", s.MedianDeltaPct, rps.MedianPct)
	}
	lo, hi := deltaRange(s.Pairs)
	if rps.MinPct != lo || rps.MaxPct != hi {
		return refuse(path, "paired.rps", "deltas from %g%% to %g%%, but its valid pairs' run from %g%% to %g%%", rps.MinPct, rps.MaxPct, lo, hi)
	}
	return nil
}

// checkOnePaired: a paired metric's counts and order.
func checkOnePaired(path, field string, pd Paired, valid int) error {
	switch {
	case pd.N > valid:
		return refuse(path, field+".n", "%d pairs, but only %d of its pairs are valid", pd.N, valid)
	case pd.N > 0 && (pd.MinPct > pd.MedianPct || pd.MedianPct > pd.MaxPct):
		return refuse(path, field, "median %g%% outside its range %g%% to %g%%", pd.MedianPct, pd.MinPct, pd.MaxPct)
	case pd.CIPct != nil && pd.CIPct[0] > pd.CIPct[1]:
		return refuse(path, field+".ci_pct", "[%g, %g] runs backwards", pd.CIPct[0], pd.CIPct[1])
	case pd.Confidence < 0 || pd.Confidence > 1:
		return refuse(path, field+".confidence", "%g is not a probability", pd.Confidence)
	}
	return nil
}

// deltaRange is the lowest and highest throughput delta of the valid pairs.
func deltaRange(pairs []Pair) (lo, hi float64) {
	first := true
	for _, p := range pairs {
		if !p.Valid() {
			continue
		}
		if first || p.DeltaPct < lo {
			lo = p.DeltaPct
		}
		if first || p.DeltaPct > hi {
			hi = p.DeltaPct
		}
		first = false
	}
	return lo, hi
}
