package race

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/gate"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/report"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
	"github.com/bindrace/bindrace/harness/targets"
)

// Options configure a race or a matrix.
type Options struct {
	A, B    string   // race
	Targets []string // matrix

	Profile *profile.Profile // after the flag overrides
	Seed    int64            // matrix: the rounds' order; race: recorded only (pairs alternate AB/BA)
	SeedSet bool

	// AllowUnequalThreads races targets that serve with different thread counts (or an unknown
	// one); the headline then says so.
	AllowUnequalThreads bool

	Out       string   // session directory; "" = <repo>/results/<session>
	JSON      bool     // stdout: summary.json only
	Command   []string // the full command line, recorded
	Stdout    io.Writer
	Stderr    io.Writer
	ServerLog io.Writer // servers' output (nil: discarded; the last lines come with a failure)
	DB        DBOptions // the database scenarios' database
	// LagTolerance: open loops (race at a rate, sweep) mark a run generator-bound when its send
	// lag p99 exceeds it; 0 = the engine's default, 1 ms.
	LagTolerance time.Duration
	// Fleet runs the servers (its server host) and the load (its client hosts) on other
	// hosts; nil: everything here. The caller opens and closes it.
	Fleet *fleet.Fleet
}

// planOf turns a profile into a Plan, filling the CPU split for this machine.
func planOf(p *profile.Profile) (Plan, error) {
	pl := Plan{
		Profile: p.Name, Connections: p.Connections, Pipelining: p.Pipelining, Workers: p.Workers,
		Threads: p.Threads, Warmup: p.Warmup.D(), Duration: p.Duration.D(), Settle: p.Settle.D(),
		Cooldown: p.Cooldown.D(), CPUsServer: p.CPUsServer, CPUsClient: p.CPUsClient,
		Perf: p.Has(profile.CountersPerf), BusySample: p.BusySample.D(), Loadgen: p.Loadgen, Windows: p.Windows,
		StartTimeout: 30 * time.Second, WarmupRequests: p.WarmupRequests,
	}
	for flag, list := range map[string]string{"--cpus-server": pl.CPUsServer, "--cpus-client": pl.CPUsClient} {
		if err := machine.CheckCPUs(list); err != nil {
			return pl, fmt.Errorf("bad flag value %s: %w", flag, err)
		}
	}
	switch {
	case pl.CPUsServer == "" && pl.CPUsClient == "":
		pl.CPUsServer, pl.CPUsClient = machine.DefaultCPUs(runtime.NumCPU())
	case pl.CPUsClient == "":
		pl.CPUsClient = machine.Complement(pl.CPUsServer, runtime.NumCPU())
		if pl.CPUsClient == "" { // the server has every CPU: the client shares them
			pl.CPUsClient = pl.CPUsServer
		}
	case pl.CPUsServer == "":
		pl.CPUsServer = machine.Complement(pl.CPUsClient, runtime.NumCPU())
	}
	return pl, nil
}

func (o *Options) shape(pl Plan, sc string, conns, pipe int) session.Shape {
	return session.Shape{
		Profile: pl.Profile, Scenario: sc, Connections: conns, Pipelining: pipe,
		Workers: pl.clientWorkers(), Loadgen: pl.Loadgen, WarmupS: pl.Warmup.Seconds(), DurationS: pl.Duration.Seconds(),
		CooldownS: pl.Cooldown.Seconds(), CPUsServer: pl.CPUsServer, CPUsClient: pl.CPUsClient,
		Command: o.Command,
	}
}

// ResultsDir is where sessions go when --out is not given.
func ResultsDir() string {
	if r, err := machine.RepoRoot(); err == nil {
		return filepath.Join(r, "results")
	}
	return "results"
}

// scenariosOf looks up every scenario named by the races.
func scenariosOf(races []profile.Race) ([]scenario.Scenario, map[string]scenario.Scenario, error) {
	var list []scenario.Scenario
	by := map[string]scenario.Scenario{}
	for _, r := range races {
		if _, ok := by[r.Scenario]; ok {
			continue
		}
		sc, err := scenario.ByName(r.Scenario)
		if err != nil {
			return nil, nil, fmt.Errorf("bad flag value --scenario: %w", err)
		}
		by[r.Scenario] = sc
		list = append(list, sc)
	}
	return list, by, nil
}

// interruptReason is why ctx ended, for the Incomplete field.
func interruptReason(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) {
			return c.Error()
		}
		return "interrupted"
	}
	return err.Error()
}

// RaceResult is what Race leaves: the summaries (one per sub-race) and the exit status.
type RaceResult struct {
	Dir       string
	Summaries []*session.Summary
	Verdict   string
	Exit      int
}

// raceSession is one race session once it is set up: what every sub-race shares.
type raceSession struct {
	o        Options
	pl       Plan
	prog     *Progress
	st       *setup
	races    []profile.Race
	byName   map[string]scenario.Scenario
	pairs    int     // asked for, rounded up to an even count
	level    float64 // confidence level of each check's interval
	warnings []string
	dir      string

	sideA, sideB session.Side
	unequal      bool
	bVersion     string

	stopped  string // set when a sub-race was cut short: the later ones are not run
	writeErr error  // a session file that could not be written makes the exit status 2
}

// Race runs a race session and writes its files. It prints the headline last on stdout (or
// summary.json with JSON). Errors before any measurement return exit 2 with a message on
// stderr and no session directory.
func Race(ctx context.Context, o Options) RaceResult {
	prog := NewProgress(o.Stderr)
	fail := func(err error) RaceResult {
		prog.Done()
		fmt.Fprintf(o.Stderr, "bindrace race: %v\n", err)
		return RaceResult{Exit: 2, Verdict: session.Incomplete}
	}
	rs, err := newRaceSession(ctx, o, prog)
	if err != nil {
		return fail(err)
	}
	defer rs.st.close()
	res := RaceResult{Dir: rs.dir}
	for ri, r := range rs.races {
		s, err := rs.runOne(ctx, ri, r)
		if err != nil {
			return fail(err)
		}
		res.Summaries = append(res.Summaries, s)
	}
	prog.Done()
	res.Verdict = session.Pass
	for _, s := range res.Summaries {
		res.Verdict = gate.Worst(res.Verdict, s.Verdict)
	}
	rs.finish(res)
	res.Exit = gate.ExitCode(res.Verdict)
	if rs.writeErr != nil {
		fmt.Fprintf(o.Stderr, "bindrace race: results incomplete on disk: %v\n", rs.writeErr)
		res.Exit = 2
	}
	return res
}

// newRaceSession checks o, sets the race up (setUp), checks the two sides serve with equal
// threads and creates the session directory.
func newRaceSession(ctx context.Context, o Options, prog *Progress) (*raceSession, error) {
	if o.A == "" || o.B == "" {
		return nil, errors.New("both --a and --b are required (e.g. --a binding --b uws)")
	}
	pl, err := planOf(o.Profile)
	if err != nil {
		return nil, err
	}
	pl.LagTolerance = o.LagTolerance
	rs := &raceSession{o: o, pl: pl, prog: prog, races: o.Profile.Races()}
	scs, byName, err := scenariosOf(rs.races)
	if err != nil {
		return nil, err
	}
	rs.byName = byName
	if err := checkDBSession(o, pl, []string{o.A, o.B}, scs); err != nil {
		return nil, err
	}
	if pl.Loadgen == "wrk" && o.Profile.OpenLoop() {
		return nil, errors.New("--loadgen wrk drives closed loops only: a race at a rate needs the builtin load generator")
	}
	for _, sc := range scs {
		if pl.Loadgen == "wrk" && sc.WebSocket() {
			return nil, fmt.Errorf("--loadgen wrk drives HTTP scenarios only, not %s", sc.Name)
		}
	}
	if !rs.o.SeedSet {
		rs.o.Seed = NewSeed()
	}
	rs.pairs = gate.EvenUp(o.Profile.Pairs)
	rs.level = stats.CheckLevel(o.Profile.Confidence, o.Profile.FallibleChecks())
	rs.warnings = rs.setupWarnings()
	rs.st, err = setUp(ctx, &rs.o, pl, prog, []string{o.A, o.B}, scs, methodLines(pl), func(man *session.Manifest) {
		for _, w := range man.Warnings {
			prog.Logf("warning: %s", w)
		}
		prog.Logf("race %s vs %s: profile %s, %s, %d pairs × %s (warm-up %s), server CPUs %q, client CPUs %q, %s interval per check",
			o.A, o.B, pl.Profile, racesText(rs.races), rs.pairs, pl.Duration, pl.Warmup, pl.CPUsServer, pl.CPUsClient, pctText(rs.level))
		for _, w := range rs.warnings {
			prog.Logf("warning: %s", w)
		}
	})
	if err != nil {
		return nil, err
	}
	if err := rs.checkThreads(); err != nil {
		rs.st.close()
		return nil, err
	}
	rs.dir = o.Out
	if rs.dir == "" {
		rs.dir = filepath.Join(ResultsDir(), session.Name(rs.st.started, o.A, o.B))
	}
	if err := session.CreateDir(rs.dir); err != nil {
		rs.st.close()
		return nil, err
	}
	rs.bVersion = upstreamVersion(rs.st.eng.resolved[o.B], o.B)
	return rs, nil
}

// setupWarnings are the warnings a race's shape earns before anything runs.
func (rs *raceSession) setupWarnings() []string {
	var warnings []string
	if rs.pairs != rs.o.Profile.Pairs {
		warnings = append(warnings, fmt.Sprintf("pairs rounded up from %d to %d, so AB and BA orders come equally often", rs.o.Profile.Pairs, rs.pairs))
	}
	if need := gate.EvenUp(stats.MinSamples(rs.level)); rs.pairs < need {
		warnings = append(warnings, fmt.Sprintf("%d pairs cannot give a bounded %s interval (need %d): the verdict can only be INCONCLUSIVE",
			rs.pairs, pctText(rs.level), need))
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
	rs.sideA, rs.sideB = rs.st.eng.side(o.A), rs.st.eng.side(o.B)
	rs.unequal = rs.sideA.Threads != rs.sideB.Threads || rs.sideA.Threads == 0
	if rs.unequal {
		msg := fmt.Sprintf("unequal server threads: %s serves with %s, %s with %s (asked for %d)",
			o.A, threadsText(rs.sideA.Threads), o.B, threadsText(rs.sideB.Threads), pl.serverThreads())
		if !o.AllowUnequalThreads {
			return errors.New(msg + "; a fair race gives both the same threads (a cmd: target takes {threads} in its command); --allow-unequal-threads races them anyway")
		}
		rs.warnings = append(rs.warnings, msg+" (--allow-unequal-threads): the delta partly measures the thread counts")
	} else if rs.sideA.Threads != pl.serverThreads() {
		rs.warnings = append(rs.warnings, fmt.Sprintf("both sides serve with %s, not the %d asked for", threadsText(rs.sideA.Threads), pl.serverThreads()))
	}
	return nil
}

// runOne measures sub-race ri (or records it as not run after an earlier one was cut short),
// gates it and writes its files. An error is one before anything of it was measured.
func (rs *raceSession) runOne(ctx context.Context, ri int, r profile.Race) (*session.Summary, error) {
	o, eng, multi := rs.o, rs.st.eng, len(rs.races) > 1
	sdir := rs.dir
	if multi {
		sdir = filepath.Join(rs.dir, session.SafeName(r.Name))
		if err := os.MkdirAll(sdir, 0o755); err != nil {
			return nil, err
		}
	}
	s := &session.Summary{}
	if rs.stopped != "" {
		// Not run: recorded so the index shows every race the profile asked for.
		*s = stats.Summarize(nil, o.Profile.GateThresholds(), stats.FixedDesign(rs.pairs, (1-rs.level)/2))
		s.Incomplete = "not run: " + rs.stopped
	} else {
		prefix := ""
		if multi {
			prefix = fmt.Sprintf("[%d/%d %s] ", ri+1, len(rs.races), r.Name)
		}
		rate, raw, cut := rs.raceRate(ctx, r, prefix)
		var measured []session.Pair
		if cut == nil {
			var runs []session.Run
			r.Rate = rate.RPS()
			measured, runs, cut = racePairs(ctx, eng, o, rs.pairs, r, rs.byName[r.Scenario], prefix, ri == len(rs.races)-1)
			raw = append(raw, runs...)
		}
		*s = stats.Summarize(measured, o.Profile.GateThresholds(), stats.FixedDesign(rs.pairs, (1-rs.level)/2))
		s.Rate = rate.Record()
		if cut == nil && o.Profile.Has(profile.CountersCachegrind) {
			cut = eng.countInto(ctx, s, r, rs.byName[r.Scenario], o.Profile)
		}
		if cut != nil {
			s.Incomplete = interruptReason(ctx, cut)
			rs.stopped = s.Incomplete
		}
		rs.keep(session.WriteJSON(filepath.Join(sdir, session.RawFile), session.Raw{Runs: raw}))
	}
	rs.describe(s, r)
	gate.Apply(s, nil)
	if r, t := s.Resolution, math.Abs(s.Thresholds.MinMedianDeltaPct); r != nil && r.HalfWidthPct > t {
		s.Warnings = stats.AppendWarning(s.Warnings, fmt.Sprintf(
			"the threshold (%+.1f%%) is tighter than this race's resolving power (±%.1f%%): an unchanged build comes out INCONCLUSIVE and only a regression beyond %.1f%% FAILs; about %d pairs would resolve it on this machine",
			s.Thresholds.MinMedianDeltaPct, r.HalfWidthPct, r.DetectablePct, r.PairsForThreshold))
	}
	rs.keep(writeRace(sdir, s, rs.st.man))
	return s, nil
}

// describe fills the summary's fields that say what was raced and how: race is their one
// writer (stats fills the statistics, gate the verdict; see session.Summary).
func (rs *raceSession) describe(s *session.Summary, r profile.Race) {
	o, pl := rs.o, rs.pl
	s.A, s.B, s.Scenario = o.A, o.B, r.Scenario
	s.Connections, s.Pipelining = r.Connections, r.Pipelining
	s.Unit = unitOf(rs.byName[r.Scenario])
	s.Shape = o.shape(pl, r.Scenario, r.Connections, r.Pipelining)
	s.Shape.Pairs, s.Shape.PairsAsked, s.Shape.Windows = rs.pairs, o.Profile.Pairs, o.Profile.Windows
	s.Shape.Seed = o.Seed
	s.BVersion = rs.bVersion
	s.SideA, s.SideB, s.UnequalThreads = rs.sideA, rs.sideB, rs.unequal
	s.FamilyConfidence, s.FallibleChecks = o.Profile.Confidence, o.Profile.FallibleChecks()
	s.DecideOn = o.Profile.DecideOn
	if s.CountersMode == "" && pl.Perf {
		s.CountersMode = profile.CountersPerf
	}
	s.CountersUnsupported = rs.st.eng.unsupportedCounters()
	s.Database = rs.st.eng.dbInfo(rs.byName[r.Scenario])
	if s.Counters == nil {
		s.Counters = map[string]map[string]float64{"a": {}, "b": {}}
	}
	for _, w := range append(rs.warnings, rs.st.man.Warnings...) {
		s.Warnings = stats.AppendWarning(s.Warnings, w)
	}
	s.Started, s.Finished = rs.st.started, time.Now().UTC()
}

// keep logs a failed write of a session file and remembers it for the exit status.
func (rs *raceSession) keep(err error) {
	if err != nil {
		rs.prog.Logf("error: %v", err)
		rs.writeErr = err
	}
}

// finish writes a race set's index and manifest, and prints the result: summary.json (or the
// set's index with every summary) with JSON, else the reasons and the headline.
func (rs *raceSession) finish(res RaceResult) {
	o := rs.o
	if len(rs.races) == 1 {
		s := res.Summaries[0]
		if o.JSON {
			session.PrintJSON(o.Stdout, s)
			return
		}
		for _, r := range s.Reasons {
			fmt.Fprintf(o.Stderr, "  %s\n", r)
		}
		if r := s.Resolution; r != nil {
			fmt.Fprintf(o.Stderr, "  resolving power: ±%.1f%% on %s (the interval's half-width over %d pairs); a regression beyond %.1f%% FAILs at the threshold\n",
				r.HalfWidthPct, r.Metric, s.Paired[r.Metric].N, r.DetectablePct)
		}
		for _, w := range s.Warnings {
			fmt.Fprintf(o.Stderr, "  warning: %s\n", w)
		}
		fmt.Fprintf(o.Stderr, "results: %s\n", rs.dir)
		fmt.Fprintln(o.Stdout, s.Headline)
		return
	}
	ix := session.Index{Kind: "race-set", Verdict: res.Verdict, Started: rs.st.started, Finished: time.Now().UTC()}
	for i, s := range res.Summaries {
		name := rs.races[i].Name
		ix.Sessions = append(ix.Sessions, session.IndexEntry{Name: name, Dir: session.SafeName(name), Verdict: s.Verdict, Headline: s.Headline})
	}
	ix.Headline = overallHeadline(ix)
	rs.keep(session.WriteJSON(filepath.Join(rs.dir, session.IndexFile), ix))
	rs.keep(session.WriteJSON(filepath.Join(rs.dir, session.ManifestFile), rs.st.man))
	if o.JSON {
		session.PrintJSON(o.Stdout, raceSetJSON{Index: ix, Summaries: res.Summaries})
		return
	}
	for i, s := range res.Summaries {
		fmt.Fprintf(o.Stdout, "%s: %s\n", ix.Sessions[i].Name, s.Headline)
	}
	fmt.Fprintf(o.Stderr, "results: %s\n", rs.dir)
	fmt.Fprintln(o.Stdout, ix.Headline)
}

type raceSetJSON struct {
	session.Index
	Summaries []*session.Summary `json:"summaries"`
}

// racePairs measures the pairs of one race. On an interrupt or a dead/broken target it stops
// and returns what it has (a half-measured pair included, its missing run carrying the error).
func racePairs(ctx context.Context, eng *engine, o Options, n int, r profile.Race, sc scenario.Scenario, prefix string, lastRace bool) ([]session.Pair, []session.Run, error) {
	var pairs []session.Pair
	var raw []session.Run
	for i := 0; i < n; i++ {
		order := PairOrder(i)
		seq := []string{o.A, o.B}
		if order == "BA" {
			seq = []string{o.B, o.A}
		}
		p := session.Pair{Index: i, Order: order}
		assign := func(slot int, run session.Run) {
			if (order == "AB") == (slot == 0) {
				p.A = run
			} else {
				p.B = run
			}
		}
		if eng.plan.Windows > 1 {
			cut := interleavedPair(ctx, eng, r, sc, seq, fmt.Sprintf("%spair %d/%d %s", prefix, i+1, n, order), assign, &raw)
			pairs = append(pairs, p)
			if cut == nil && !(lastRace && i == n-1) && !eng.cooldown(ctx, "pair") {
				cut = fmt.Errorf("%w during cooldown", ErrInterrupted)
			}
			if cut != nil {
				return pairs, raw, cut
			}
			continue
		}
		var cut error
		for slot, name := range seq {
			if cut != nil {
				assign(slot, session.Run{Target: name, Scenario: sc.Name, Slot: slot, Error: "not run: session stopped"})
				continue
			}
			label := fmt.Sprintf("%spair %d/%d %s %s", prefix, i+1, n, order, name)
			run, err := eng.measure(ctx, runSpec{target: name, sc: sc, connections: r.Connections, pipelining: r.Pipelining, slot: slot, label: label, rate: r.Rate})
			raw = append(raw, run)
			assign(slot, run)
			if err != nil {
				eng.prog.Logf("%s: %v", label, err)
				cut = err
				continue
			}
			last := lastRace && i == n-1 && slot == len(seq)-1
			if !last && !eng.cooldown(ctx, label) {
				cut = fmt.Errorf("%w during cooldown", ErrInterrupted)
			}
		}
		pairs = append(pairs, p)
		if cut != nil {
			return pairs, raw, cut
		}
	}
	return pairs, raw, nil
}

// interleavedPair measures one pair in interleaved windows (measurePair) and assigns its runs.
func interleavedPair(ctx context.Context, eng *engine, r profile.Race, sc scenario.Scenario, seq []string, label string,
	assign func(int, session.Run), raw *[]session.Run) error {
	var specs [2]runSpec
	for slot, name := range seq {
		specs[slot] = runSpec{target: name, sc: sc, connections: r.Connections, pipelining: r.Pipelining, slot: slot, label: label + " " + name, rate: r.Rate}
	}
	runs, err := eng.measurePair(ctx, specs)
	for slot := range runs {
		*raw = append(*raw, runs[slot])
		assign(slot, runs[slot])
	}
	if err != nil {
		eng.prog.Logf("%s: %v", label, err)
	}
	return err
}

// writeRace writes summary.json and manifest.json, then the rendered reports.
func writeRace(dir string, s *session.Summary, man *session.Manifest) error {
	if err := session.WriteJSON(filepath.Join(dir, session.SummaryFile), s); err != nil {
		return err
	}
	if err := session.WriteJSON(filepath.Join(dir, session.ManifestFile), man); err != nil {
		return err
	}
	return report.WriteAll(dir)
}

func overallHeadline(ix session.Index) string {
	var parts []string
	for _, e := range ix.Sessions {
		parts = append(parts, e.Name+" "+e.Verdict)
	}
	return fmt.Sprintf("overall %s: the worst of %d races (%s)", ix.Verdict, len(ix.Sessions), strings.Join(parts, ", "))
}

func racesText(rs []profile.Race) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%s (%d connections, pipelining %d)", r.Scenario, r.Connections, r.Pipelining))
	}
	return strings.Join(parts, "; ")
}

// pctText prints a level as "95%" or "97.5%".
func pctText(level float64) string {
	return strconv.FormatFloat(level*100, 'f', -1, 64) + "%"
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

func methodLines(pl Plan) []string {
	return []string{
		"one fresh server process per measurement: start, verify, warm up, settle, measure, stop, cool down",
		fmt.Sprintf("warm-up %s (excluded from every figure), settle %s, measured window %s, cooldown %s", pl.Warmup, pl.Settle, pl.Duration, pl.Cooldown),
		fmt.Sprintf("server on CPUs %q with %d thread(s); load generator (%s) on CPUs %q with %d worker(s)", pl.CPUsServer, pl.serverThreads(), pl.Loadgen, pl.CPUsClient, pl.clientWorkers()),
		fmt.Sprintf("client-bound when the server used under %.0f%% of its %g allotted core(s) during the window", ClientBoundFraction*100, pl.allottedCores()),
	}
}

// upstreamVersion picks the version the headline shows for B ("pinned 20.30.0").
func upstreamVersion(t *targets.Target, name string) string {
	if t.Kind == targets.KindBinding {
		return "" // our own build: its manifest, not a pinned version, says what it is
	}
	v := t.Versions()
	for _, k := range []string{"@trufflesuite/uws-js-unofficial", name, "manifest.version", "go"} {
		if s := v[k]; s != "" && s != "unknown" {
			return s
		}
	}
	return ""
}
