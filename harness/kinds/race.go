package kinds

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/stats"
)

// RaceOptions configure a race: A (the candidate) against B in balanced AB/BA pairs.
type RaceOptions struct {
	Options
	A, B string
	// AllowUnequalThreads races targets that serve with different thread counts (or an unknown
	// one); the headline then says so.
	AllowUnequalThreads bool
	// Rounds is passed to every pair: a hook after each round of partner windows that may set
	// the round aside to be measured again (measure.PairOptions). Zero: every round counts.
	Rounds measure.PairOptions
}

// raceSession is one race session once it is set up: what every sub-race shares.
type raceSession struct {
	o        RaceOptions
	pl       measure.Plan
	st       *setup
	races    []profile.Race
	byName   map[string]scenario.Scenario
	design   *session.Design // how every race plans its pairs
	level    float64         // confidence level of each check's interval
	warnings []string
	dir      string
	// firstPace is a pair's duration before any was measured (the plan's estimate); deadline
	// ends the session's max_time (zero: none).
	firstPace time.Duration
	deadline  time.Time

	sideA, sideB session.Side
	unequal      bool
	bVersion     string

	stopped  string // set when a sub-race was cut short: the later ones are not run
	failed   string // set when a sub-race FAILed: the session's verdict is decided, the later ones are not run
	writeErr error  // a session file that could not be written
}

// Race runs a race session: every sub-race's pairs, their statistics and verdict, and its files
// (summary.json, raw.json, manifest.json per sub-race; index.json for a set). An error is one
// before any measurement (bad input, a target that does not start or verify): nothing is saved
// then. A race cut short later returns its result with the sub-race INCOMPLETE.
func Race(ctx context.Context, o RaceOptions) (Result[RaceSet], error) {
	incomplete := Result[RaceSet]{Summary: &RaceSet{Verdict: session.Incomplete}}
	rs, err := newRaceSession(ctx, o)
	if err != nil {
		return incomplete, err
	}
	defer rs.st.close()
	set := &RaceSet{}
	for ri, r := range rs.races {
		s, err := rs.runOne(ctx, ri, r)
		if err != nil {
			return incomplete, err
		}
		set.Summaries = append(set.Summaries, s)
	}
	set.Verdict = session.Pass
	for _, s := range set.Summaries {
		set.Verdict = gate.Worst(set.Verdict, s.Verdict)
	}
	pooled := gate.Pool(set.Summaries)
	if pooled != nil {
		set.Verdict = gate.Worst(set.Verdict, pooled.Verdict)
	}
	if len(rs.races) > 1 {
		set.Index = rs.writeIndex(set, pooled)
	}
	return Result[RaceSet]{Dir: rs.dir, Summary: set, WriteErr: rs.writeErr}, nil
}

// newRaceSession checks o, sets the race up (setUp), checks the two sides serve with equal
// threads and creates the session directory.
func newRaceSession(ctx context.Context, o RaceOptions) (*raceSession, error) {
	if o.A == "" || o.B == "" {
		return nil, setting.Errorf("both {a} and {b} are required (e.g. {a} binding {b} uws)")
	}
	pl, err := measure.NewPlan(o.Profile)
	if err != nil {
		return nil, err
	}
	pl.LagTolerance = o.LagTolerance
	rs := &raceSession{o: o, pl: pl, races: o.Profile.Races(), byName: map[string]scenario.Scenario{}}
	scs, err := rs.scenarios()
	if err != nil {
		return nil, err
	}
	if err := rs.check(scs); err != nil {
		return nil, err
	}
	if !rs.o.SeedSet {
		rs.o.Seed = NewSeed()
	}
	if rs.design, err = o.Profile.Design(); err != nil {
		return nil, err
	}
	rs.level = 1 - 2*rs.design.Alpha
	if err := rs.checkBudget(0, 0); err != nil {
		return nil, err
	}
	rs.warnings = append(rs.warnings, rs.setupWarnings()...)
	cfg := measure.Config{Plan: rs.pl, Targets: []string{o.A, o.B}}
	rs.st, err = setUp(ctx, &rs.o.Options, cfg, scs, methodLines(rs.pl), rs.announce)
	if err != nil {
		return nil, err
	}
	if err := rs.checkThreads(); err != nil {
		rs.st.close()
		return nil, err
	}
	if err := rs.startClock(); err != nil {
		rs.st.close()
		return nil, err
	}
	rs.dir = o.Out
	if rs.dir == "" {
		rs.dir = filepath.Join(ResultsDir(), session.Name(rs.st.started, o.A, o.B))
	}
	if err := session.CreateDir(rs.dir, o.Force); err != nil {
		rs.st.close()
		return nil, err
	}
	rs.bVersion = rs.st.rig.Target(o.B).UpstreamVersion()
	return rs, nil
}

// scenarios looks up every scenario the races name, once each.
func (rs *raceSession) scenarios() ([]scenario.Scenario, error) {
	var list []scenario.Scenario
	for _, r := range rs.races {
		if _, ok := rs.byName[r.Scenario]; ok {
			continue
		}
		sc, err := scenarioOf(r)
		if err != nil {
			return nil, err
		}
		rs.byName[r.Scenario] = sc
		list = append(list, sc)
	}
	return list, nil
}

// check refuses what the race cannot run, before anything starts.
func (rs *raceSession) check(scs []scenario.Scenario) error {
	if err := checkServes([]string{rs.o.A, rs.o.B}, scs); err != nil {
		return err
	}
	if err := checkDB(&rs.o.Options, &rs.pl, scs, &rs.warnings); err != nil {
		return err
	}
	if rs.pl.Loadgen == "wrk" && rs.o.Profile.OpenLoop() {
		return setting.Errorf("{loadgen} wrk drives closed loops only: a race at a rate needs the builtin load generator")
	}
	for _, sc := range scs {
		if rs.pl.Loadgen == "wrk" && sc.WebSocket() {
			return setting.Errorf("{loadgen} wrk drives HTTP scenarios only, not %s", sc.Name)
		}
	}
	return nil
}

// announce logs the manifest's warnings, the race's shape and its own warnings.
func (rs *raceSession) announce(man *session.Manifest) {
	ev, o, pl := rs.o.Events, rs.o, rs.pl
	for _, w := range man.Warnings {
		ev.Warnf("%s", w)
	}
	ev.Notef("race %s vs %s: profile %s, %s, %s × %d windows of %s (warm-up %s), server CPUs %q, client CPUs %q, %s interval per check",
		o.A, o.B, o.Profile.Name, racesText(rs.races), designText(rs.design), max(pl.Windows, 1), pl.Duration.D(), pl.Warmup.D(), pl.CPUsServer, pl.CPUsClient, gate.PctLevel(rs.level))
	for _, w := range rs.warnings {
		ev.Warnf("%s", w)
	}
}

// setupWarnings are the warnings a race's shape earns before anything runs.
func (rs *raceSession) setupWarnings() []string {
	var warnings []string
	if d := rs.design; d.Kind == session.DesignFixed {
		if d.MaxPairs != rs.o.Profile.Pairs {
			warnings = append(warnings, fmt.Sprintf("pairs rounded up from %d to %d, so AB and BA orders come equally often", rs.o.Profile.Pairs, d.MaxPairs))
		}
		if need := gate.EvenUp(stats.MinSamples(rs.level)); d.MaxPairs < need {
			warnings = append(warnings, fmt.Sprintf("%d pairs cannot give a bounded %s interval (need %d): the verdict can only be INCONCLUSIVE",
				d.MaxPairs, gate.PctLevel(rs.level), need))
		}
	}
	if machine.Overlap(rs.pl.CPUsServer, rs.pl.CPUsClient) {
		warnings = append(warnings, fmt.Sprintf("server CPUs %q and load generator CPUs %q overlap: the client takes CPU from the server, so throughput measures both", rs.pl.CPUsServer, rs.pl.CPUsClient))
	}
	return warnings
}

// checkThreads compares the threads both sides serve with: unequal (or unknown) threads are an
// error unless AllowUnequalThreads, then a warning.
func (rs *raceSession) checkThreads() error {
	o, pl := rs.o, rs.pl
	rs.sideA, rs.sideB = rs.st.rig.Side(o.A), rs.st.rig.Side(o.B)
	rs.unequal = rs.sideA.Threads != rs.sideB.Threads || rs.sideA.Threads == 0
	if rs.unequal {
		msg := fmt.Sprintf("unequal server threads: %s serves with %s, %s with %s (asked for %d)",
			o.A, threadsText(rs.sideA.Threads), o.B, threadsText(rs.sideB.Threads), pl.ServerThreads())
		if !o.AllowUnequalThreads {
			return setting.Errorf("%s; a fair race gives both the same threads (a cmd: target takes %s in its command); {allow_unequal_threads} races them anyway", msg, "{threads}")
		}
		rs.warnings = append(rs.warnings, msg+" (raced anyway, as asked): the delta partly measures the thread counts")
	} else if rs.sideA.Threads != pl.ServerThreads() {
		rs.warnings = append(rs.warnings, fmt.Sprintf("both sides serve with %s, not the %d asked for", threadsText(rs.sideA.Threads), pl.ServerThreads()))
	}
	return nil
}

// runOne measures sub-race ri (or records it as not run after an earlier one was cut short),
// gates it and writes its files. An error is one before anything of it was measured.
func (rs *raceSession) runOne(ctx context.Context, ri int, r profile.Race) (*session.Summary, error) {
	o, multi := rs.o, len(rs.races) > 1
	sdir := rs.dir
	if multi {
		sdir = filepath.Join(rs.dir, session.SafeName(r.Name))
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			return nil, err
		}
	}
	s := &session.Summary{}
	switch {
	case rs.stopped != "":
		// Not run: recorded so the index shows every race the profile asked for.
		*s = stats.Summarize(nil, o.Profile.RaceThresholds(r), rs.design)
		s.Incomplete = "not run: " + rs.stopped
	case rs.failed != "":
		*s = stats.Summarize(nil, o.Profile.RaceThresholds(r), rs.design)
		s.Stop = &session.Stop{Reason: session.StopSessionFail}
		s.Warnings = append(s.Warnings, "not run: "+rs.failed+" FAILed first, which decided the session's verdict")
	default:
		prefix := ""
		if multi {
			prefix = fmt.Sprintf("[%d/%d %s] ", ri+1, len(rs.races), r.Name)
		}
		rs.measure(ctx, s, r, prefix, sdir, ri)
	}
	rs.describe(s, r)
	gate.Apply(s, nil)
	if s.Verdict == session.Fail && rs.failed == "" {
		rs.failed = r.Name
	}
	if r, t := s.Resolution, math.Abs(s.Thresholds.MinMedianDeltaPct); r != nil && r.HalfWidthPct > t && s.Verdict == session.Inconclusive {
		s.Warnings = stats.AppendWarning(s.Warnings, fmt.Sprintf(
			"the threshold (%+.1f%%) is tighter than this race's resolving power (±%.1f%%): an unchanged build comes out INCONCLUSIVE and only a regression beyond %.1f%% FAILs",
			s.Thresholds.MinMedianDeltaPct, r.HalfWidthPct, r.DetectablePct))
	}
	if err := writeRace(sdir, s, rs.st.man); err != nil {
		rs.keep(err)
	} else {
		rs.o.Events.Emit(measure.Saved{Dir: sdir})
	}
	return s, nil
}

// measure measures race r into s: its rate (for an open loop), its deterministic counts (an
// instruction check that FAILs decides the race before any pair), then its pairs until its
// design stops them, within its share of the session's time; raw.json gets every run. A cut
// makes s incomplete and stops the later sub-races.
func (rs *raceSession) measure(ctx context.Context, s *session.Summary, r profile.Race, prefix, sdir string, ri int) {
	rate, raw, cut := rs.raceRate(ctx, r, prefix)
	counted := &session.Summary{Raced: session.Raced{A: rs.o.A, B: rs.o.B}}
	cs := countStep{p: rs.o.Profile, rig: rs.st.rig, ev: rs.o.Events, design: rs.design}
	switch {
	case cut != nil || !rs.o.Profile.Has(profile.CountersCachegrind) && !rs.o.Profile.Has(counters.ModeRSSGrowth):
	case r.Uncounted:
		rs.o.Events.Notef("%snot counted: the profile leaves this race out of the counts step (count: false)", prefix)
	default:
		cut = cs.count(ctx, counted, r, rs.byName[r.Scenario], sdir)
	}
	var pr pairsRun
	failed := cs.failed(counted)
	if cut == nil && failed == "" {
		r.Rate = rate.RPS()
		pr, cut = rs.measurePairs(ctx, r, counted, prefix, ri == 0, rs.share(ri))
		raw = append(raw, pr.raw...)
	} else if cut == nil {
		pr.stop = session.Stop{Reason: session.StopDecided}
		rs.o.Events.Notef("%spairs not measured: the %s check FAILed, which decides the race", prefix, failed)
	}
	*s = stats.Summarize(pr.pairs, rs.o.Profile.RaceThresholds(r), rs.design)
	s.Counts = counted.Counts
	s.Rate = rate.Record()
	s.Stop = &pr.stop
	s.SetAside = setAsideOf(pr.pairs, rs.o.Profile.StealLimitPct)
	if cut != nil {
		s.Incomplete = measure.InterruptReason(ctx, cut)
		rs.stopped = s.Incomplete
	}
	rs.keep(session.WriteJSON(filepath.Join(sdir, session.RawFile), session.Raw{Runs: raw}))
}

// share is when race ri must stop starting pairs: an equal share of what is left of the
// session's max_time among the races still to run, so a race decided early leaves its time to
// the undecided ones after it. Zero without a max_time.
func (rs *raceSession) share(ri int) time.Time {
	if rs.deadline.IsZero() {
		return time.Time{}
	}
	left := time.Until(rs.deadline) / time.Duration(len(rs.races)-ri)
	return time.Now().Add(left)
}

// checkBudget refuses a max_time that cannot hold the pairs the design needs to decide
// anything — every race's first decisive look — at the pace of pairs whose servers each take
// startup to start, spent of it being gone already. Race calls it before any server starts,
// with no start-up at all: a budget too short even then is refused before anything runs.
func (rs *raceSession) checkBudget(startup, spent time.Duration) error {
	d, pl := rs.design, rs.pl
	per := 2*(pl.Warmup.D()+pl.Settle.D()+startup) + time.Duration(2*max(pl.Windows, 1))*pl.Duration.D() + pl.Cooldown.D()
	rs.firstPace = per
	if d.Kind != session.DesignSequential || d.MaxTimeS <= 0 {
		return nil
	}
	budget := time.Duration(d.MaxTimeS * float64(time.Second))
	need := stats.FirstDecisiveLook(d)
	total := time.Duration(need*len(rs.races)) * per
	if left := budget - spent; total > left {
		after := ""
		if spent > 0 {
			after = " after set-up"
		}
		return setting.Errorf("{max_time} %s is too short: %d race(s) need at least %d pairs each to decide anything, about %s a pair %s (%s in all, %s left%s); give at least %s",
			budget, len(rs.races), need, per.Round(100*time.Millisecond), paceText(startup), total.Round(time.Second), left.Round(time.Second),
			after, (total + spent).Round(time.Second))
	}
	return nil
}

// paceText says what a pair's time was reckoned with.
func paceText(startup time.Duration) string {
	if startup == 0 {
		return "even with servers that start at once"
	}
	return "here"
}

// startClock starts the session's clock once every server of the set-up verified, and holds the
// budget again to the pace measured then: what the servers took to start.
func (rs *raceSession) startClock() error {
	if d := rs.design; d.Kind == session.DesignSequential && d.MaxTimeS > 0 {
		rs.deadline = rs.st.started.Add(time.Duration(d.MaxTimeS * float64(time.Second)))
	}
	return rs.checkBudget(rs.st.startup, time.Since(rs.st.started))
}

// describe fills the summary's fields that say what was raced and how: the race kind is their
// one writer (stats fills the statistics, gate the verdict; see session.Summary).
func (rs *raceSession) describe(s *session.Summary, r profile.Race) {
	o, pl := rs.o, rs.pl
	s.A, s.B, s.Scenario = o.A, o.B, r.Scenario
	s.Connections, s.Pipelining = r.Connections, r.Pipelining
	s.Unit = measure.UnitOf(rs.byName[r.Scenario])
	s.Shape = shape(&o.Options, pl, r.Scenario, r.Connections, r.Pipelining)
	s.Shape.Pairs, s.Shape.PairsAsked, s.Shape.Windows = len(s.Pairs), o.Profile.Pairs, pl.Windows
	s.Shape.Seed = o.Seed
	s.BVersion = rs.bVersion
	s.SideA, s.SideB, s.UnequalThreads = rs.sideA, rs.sideB, rs.unequal
	s.FamilyConfidence, s.FallibleChecks = o.Profile.Confidence, o.Profile.FallibleChecks()
	s.DecideOn, s.Pooled = o.Profile.DecideOn, o.Profile.PoolsThroughput()
	if s.CountersMode == "" && pl.Perf {
		s.CountersMode = profile.CountersPerf
	}
	s.CountersUnsupported = rs.st.rig.Unsupported().Sorted()
	if d := rs.st.rig.Database(); d != nil && rs.byName[r.Scenario].Database != "" {
		info := d.Info()
		s.Database = &info
	}
	if s.Counters == nil {
		s.Counters = map[string]map[string]float64{"a": {}, "b": {}}
	}
	for _, w := range append(rs.warnings, rs.st.man.Warnings...) {
		s.Warnings = stats.AppendWarning(s.Warnings, w)
	}
	s.Started, s.Finished = rs.st.started, time.Now().UTC()
}

// keep logs a failed write of a session file and remembers it.
func (rs *raceSession) keep(err error) {
	if err != nil {
		rs.o.Events.Notef("error: %v", err)
		rs.writeErr = err
	}
}

// writeIndex writes a race set's index.json and manifest.json, and returns the index.
func (rs *raceSession) writeIndex(res *RaceSet, pooled *session.Check) *session.Index {
	ix := &session.Index{Kind: "race-set", Verdict: res.Verdict, Pooled: pooled, Started: rs.st.started, Finished: time.Now().UTC()}
	for i, s := range res.Summaries {
		name := rs.races[i].Name
		ix.Sessions = append(ix.Sessions, session.IndexEntry{Name: name, Dir: session.SafeName(name), Verdict: s.Verdict, Headline: s.Headline})
	}
	ix.Headline = overallHeadline(*ix)
	rs.keep(session.WriteJSON(filepath.Join(rs.dir, session.IndexFile), ix))
	rs.keep(session.WriteJSON(filepath.Join(rs.dir, session.ManifestFile), rs.st.man))
	return ix
}

// writeRace writes a (sub-)race's summary.json and manifest.json.
func writeRace(dir string, s *session.Summary, man *session.Manifest) error {
	if err := session.WriteJSON(filepath.Join(dir, session.SummaryFile), s); err != nil {
		return err
	}
	return session.WriteJSON(filepath.Join(dir, session.ManifestFile), man)
}

func overallHeadline(ix session.Index) string {
	var parts []string
	for _, e := range ix.Sessions {
		parts = append(parts, e.Name+" "+e.Verdict)
	}
	line := fmt.Sprintf("overall %s: the worst of %d races (%s)", ix.Verdict, len(ix.Sessions), strings.Join(parts, ", "))
	if c := ix.Pooled; c != nil {
		line = fmt.Sprintf("overall %s: the pooled throughput check %s", ix.Verdict, c.Verdict)
		if c.Delta != nil && c.Interval != nil {
			line += fmt.Sprintf(" (median %+.1f%%, interval [%+.1f%%, %+.1f%%] over %d pooled pairs, limit %+.1f%%)", *c.Delta, c.Interval[0], c.Interval[1], c.N, c.Limit)
		}
		line += fmt.Sprintf(" and the worst of %d races' guards and errors (%s)", len(ix.Sessions), strings.Join(parts, ", "))
	}
	return line
}

// designText names a design for the opening line: "12 pairs", "6 to 30 pairs (sequential,
// within 5m0s)".
func designText(d *session.Design) string {
	if d.Kind == session.DesignFixed {
		return fmt.Sprintf("%d pairs", d.MaxPairs)
	}
	t := fmt.Sprintf("%d to %d pairs (sequential", d.MinPairs, d.MaxPairs)
	if d.MaxTimeS > 0 {
		t += fmt.Sprintf(", within %s", time.Duration(d.MaxTimeS*float64(time.Second)))
	}
	return t + ")"
}

func threadsText(n int) string {
	switch n {
	case 0:
		return "an unknown thread count"
	case 1:
		return "1 thread"
	}
	return fmt.Sprintf("%d threads", n)
}
