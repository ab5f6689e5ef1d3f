package kinds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/targets"
)

// Options are what every session kind takes.
type Options struct {
	Profile *profile.Profile // after the user's settings
	// Given are the profile settings the user gave (by field name): a default the user did not
	// choose may adapt to the session, with a note; a value given is refused instead.
	Given map[string]bool
	Out   string // the session directory; "": one in ResultsDir named by time, kind and targets
	// Force lets Out be a folder that holds files already: another session's (replaced) or
	// files bindrace did not write (written into). Without it such a folder is refused before
	// anything runs (session.CheckDir).
	Force bool
	// Seed draws what the kind draws at random (a matrix's orders); SeedSet false: a time-based
	// one, recorded.
	Seed      int64
	SeedSet   bool
	Command   []string  // the full command line, recorded
	ServerLog io.Writer // the servers' output; nil: discarded
	Events    measure.Events
	DB        measure.DBOptions // the database scenarios' database
	// LagTolerance: open loops mark a run generator-bound when its send lag p99 exceeds it;
	// 0 = the load generator's default, 1 ms.
	LagTolerance time.Duration
	// Fleet runs the servers (its server host) and the load (its client hosts) on other hosts;
	// nil: everything here. The caller opens and closes it.
	Fleet *fleet.Fleet
}

// ResultsDir is where sessions go when Out is not given: <repo>/results.
func ResultsDir() string {
	if r, err := machine.RepoRoot(); err == nil {
		return filepath.Join(r, "results")
	}
	return "results"
}

// setup is what a session holds once set up, before its first measurement.
type setup struct {
	rig     *measure.Rig
	man     *session.Manifest // the environment, the targets' versions, the method
	started time.Time
	restore func() // unpins the load generator
	// startup is how long starting and verifying a target took in the preflight, on average:
	// what a race's pace estimate counts per run before it has measured a pair.
	startup time.Duration
}

// setUp is the skeleton every kind but noise shares: a rig with the targets resolved, the
// manifest, the load generator pinned to the client CPUs, announce (the kind's own progress
// lines, given the manifest), the session's database (after pinning: a private PostgreSQL
// inherits the load generator's CPUs) and a preflight of every target on every scenario. On
// success the caller must call close.
func setUp(ctx context.Context, o *Options, cfg measure.Config, scs []scenario.Scenario,
	method []string, announce func(man *session.Manifest)) (*setup, error) {
	if err := session.CheckDir(o.Out, o.Force); err != nil {
		return nil, err
	}
	if err := checkRemote(o, cfg.Plan); err != nil {
		return nil, err
	}
	cfg.Fleet, cfg.ServerLog, cfg.Events = o.Fleet, o.ServerLog, o.Events
	rig, err := measure.NewRig(cfg)
	if err != nil {
		return nil, err
	}
	st := &setup{rig: rig, started: time.Now().UTC(), man: machine.Environment(o.Command), restore: func() {}}
	st.man.Targets = map[string]map[string]string{}
	for _, n := range cfg.Targets {
		st.man.Targets[n] = rig.Target(n).Versions()
	}
	st.man.Method = method
	if st.restore, err = machine.PinSelf(cfg.Plan.CPUsClient); err != nil {
		rig.Close()
		return nil, err
	}
	announce(st.man)
	if err := rig.OpenDatabase(ctx, o.DB, scs); err != nil {
		st.close()
		return nil, err
	}
	preflight := time.Now()
	if err := checkCounting(ctx, o, rig); err != nil {
		st.close()
		return nil, err
	}
	if err := rig.Preflight(ctx, cfg.Targets, scs); err != nil {
		st.close()
		if ctx.Err() != nil {
			return nil, errors.New(measure.InterruptReason(ctx, err) + " before measuring; nothing saved")
		}
		return nil, err
	}
	st.startup = time.Since(preflight) / time.Duration(max(len(cfg.Targets), 1))
	return st, nil
}

// checkCounting refuses, before any pair, a session that counts under valgrind when valgrind
// cannot run here: without it every race would run its pairs and end with no counts.
func checkCounting(ctx context.Context, o *Options, rig *measure.Rig) error {
	if !o.Profile.Has(profile.CountersCachegrind) {
		return nil
	}
	if err := rig.Counter().CheckValgrind(ctx); err != nil {
		return fmt.Errorf("%w: %w", setting.Errorf("{counters} cachegrind"), err)
	}
	return nil
}

// close unpins the load generator and stops every server still running, and the database.
func (st *setup) close() {
	st.restore()
	st.rig.Close()
}

// makeDir creates the session's folder: o.Out, else one in ResultsDir named by the start time,
// the kind of session and its targets. On an error it closes st.
func (st *setup) makeDir(o *Options, kind string, names []string) (string, error) {
	dir := o.Out
	if dir == "" {
		dir = filepath.Join(ResultsDir(), st.started.Format("20060102-150405")+"-"+kind+"-"+session.SafeName(strings.Join(names, "-")))
	}
	if err := session.CreateDir(dir, o.Force); err != nil {
		st.close()
		return "", err
	}
	return dir, nil
}

// writeSession writes a matrix's, scale's or sweep's summary.json, raw.json and manifest.json
// into dir, and says so (Saved) when it could.
func writeSession(dir string, summary any, raw session.Raw, man *session.Manifest, ev measure.Events) error {
	for _, f := range []struct {
		name string
		v    any
	}{{session.SummaryFile, summary}, {session.RawFile, raw}, {session.ManifestFile, man}} {
		if err := session.WriteJSON(filepath.Join(dir, f.name), f.v); err != nil {
			return err
		}
	}
	ev.Emit(measure.Saved{Dir: dir})
	return nil
}

// logWarnings adds the manifest's warnings to a session's own and logs them all.
func logWarnings(ev measure.Events, warnings *[]string, man *session.Manifest) {
	*warnings = append(*warnings, man.Warnings...)
	for _, w := range *warnings {
		ev.Warnf("%s", w)
	}
}

// shape is what a session of race r ran, as its summary records it.
func shape(o *Options, pl measure.Plan, sc string, conns, pipe int) session.Shape {
	return session.Shape{
		Profile: o.Profile.Name, Scenario: sc, Connections: conns, Pipelining: pipe,
		Workers: pl.ClientWorkers(), Loadgen: pl.Loadgen, WarmupS: pl.Warmup.D().Seconds(), DurationS: pl.Duration.D().Seconds(),
		CooldownS: pl.Cooldown.D().Seconds(), CPUsServer: pl.CPUsServer, CPUsClient: pl.CPUsClient,
		Command: o.Command,
	}
}

// methodLines are the method in words, for the manifest.
func methodLines(pl measure.Plan) []string {
	return []string{
		"one fresh server process per measurement: start, verify, warm up, settle, measure, stop, cool down",
		fmt.Sprintf("warm-up %s (excluded from every figure), settle %s, measured window %s, cooldown %s", pl.Warmup.D(), pl.Settle.D(), pl.Duration.D(), pl.Cooldown.D()),
		fmt.Sprintf("server on CPUs %q with %d thread(s); load generator (%s) on CPUs %q with %d worker(s)", pl.CPUsServer, pl.ServerThreads(), pl.Loadgen, pl.CPUsClient, pl.ClientWorkers()),
		fmt.Sprintf("client-bound when the server used under %.0f%% of its %g allotted core(s) during the window (in a database scenario, only if the load generator was then the bottleneck)", measure.ClientBoundFraction*100, pl.AllottedCores()),
	}
}

func racesText(rs []profile.Race) string {
	var parts []string
	for _, r := range rs {
		uncounted := ""
		if r.Uncounted {
			uncounted = ", not counted"
		}
		parts = append(parts, fmt.Sprintf("%s (%d connections, pipelining %d%s)", r.Scenario, r.Connections, r.Pipelining, uncounted))
	}
	return strings.Join(parts, "; ")
}

// scenarioOf looks up race r's scenario.
func scenarioOf(r profile.Race) (scenario.Scenario, error) {
	sc, err := scenario.ByName(r.Scenario)
	if err != nil {
		return sc, setting.Errorf("{scenario}: %v", err)
	}
	return sc, nil
}

// checkRemote holds a session with a fleet to what runs on other hosts: cachegrind counters
// stay local (valgrind runs the server here), perf_event counters read local pids only, and
// load generators on other hosts need the server on one too (a local server listens on
// loopback).
func checkRemote(o *Options, pl measure.Plan) error {
	if o.Fleet == nil {
		return nil
	}
	if o.Profile.Has(profile.CountersCachegrind) || pl.Perf || pl.Syscalls || pl.Sample {
		return setting.Errorf("counters stay local: with {server_host} or {client_hosts} use {counters} none (bindrace counters measures a local server)")
	}
	if o.Fleet.Server == nil && len(o.Fleet.Clients) > 0 {
		return setting.Errorf("{client_hosts} needs {server_host}: a local server listens on loopback only")
	}
	if pl.Loadgen == "wrk" && len(o.Fleet.Clients) > 0 {
		return setting.Errorf("{loadgen} wrk runs here only; {client_hosts} runs bindrace load on each host")
	}
	return nil
}

// checkDB refuses what cannot run a database scenario, before anything starts, and adapts
// what may. A scenario that writes (create-order) needs a fresh copy of the database for every
// run, so its servers run one at a time: windows the user did not give come down to 1 (with a
// note in *warnings), windows the user gave are refused. The read-only ones keep interleaved
// windows, both servers of a pair on one copy reset before the pair.
func checkDB(o *Options, pl *measure.Plan, scs []scenario.Scenario, warnings *[]string) error {
	var dbs, writers []string
	for _, sc := range scs {
		if sc.Database != "" {
			dbs = append(dbs, sc.Name)
		}
		if sc.Writes {
			writers = append(writers, sc.Name)
		}
	}
	if len(dbs) == 0 {
		return nil
	}
	if err := o.DB.Check(); err != nil {
		return err
	}
	switch {
	case pl.Loadgen == "wrk":
		return setting.Errorf("{loadgen} wrk cannot fill ids per request: the database scenarios (%v) need the built-in load generator", dbs)
	case o.Fleet != nil:
		return setting.Errorf("the database scenarios (%v) run on this machine only: its private PostgreSQL is not reachable from {server_host}/{client_hosts}", dbs)
	case len(writers) == 0:
	case pl.Windows > 1 && o.Given["windows"]:
		return setting.Errorf("{windows} %d: %v write to the database, which is reset before every run of theirs, so one server runs at a time ({windows} 1)", pl.Windows, writers)
	case pl.Windows > 1:
		*warnings = append(*warnings, fmt.Sprintf("the profile's %d windows per run became 1: %v write to the database, which is reset before every run of theirs, so one server runs at a time", pl.Windows, writers))
		pl.Windows = 1
	}
	return nil
}

// checkServes refuses a scenario a target's definition does not claim, naming both, before
// anything starts (a target that does not resolve is refused later, with its own reason).
func checkServes(names []string, scs []scenario.Scenario) error {
	list := make([]string, len(scs))
	for i, sc := range scs {
		list[i] = sc.Name
	}
	for _, n := range names {
		if t, err := targets.Resolve(n); err == nil {
			if err := t.Refuses(list); err != nil {
				return err
			}
		}
	}
	return nil
}
