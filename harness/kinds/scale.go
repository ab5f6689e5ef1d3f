package kinds

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/stats"
)

// ScaleOptions is a scale session: Targets at each of Threads server threads.
type ScaleOptions struct {
	Options
	Targets []string
	Threads []int
}

// scaleSession is a scale session once it is set up.
type scaleSession struct {
	o      *ScaleOptions
	pl     measure.Plan
	st     *setup
	sc     scenario.Scenario
	conns  int
	pipe   int
	rounds int
	warn   []string
	dir    string
}

// Scale runs a scale session: for each thread count (ascending) and round, every target once,
// the targets' order reversed from one round or point to the next (AB, BA, …), each run a
// fresh server with that many threads (the race's equal-threads rule: event loops,
// GOMAXPROCS, uWebSockets.js apps), the load generator's own CPU read over each window. It
// writes the session's files. An error is bad input or one before any measurement.
func Scale(ctx context.Context, o ScaleOptions) (Result[session.Scale], error) {
	ss, err := newScaleSession(ctx, &o)
	if err != nil {
		return Result[session.Scale]{}, err
	}
	defer ss.st.close()
	runs, cut := ss.points(ctx)
	s := &session.Scale{Kind: "scale", Targets: o.Targets, Threads: o.Threads, Scenario: ss.sc.Name, Unit: measure.UnitOf(ss.sc),
		Rounds: ss.rounds, Runs: runs, Warnings: ss.warn, Started: ss.st.started}
	s.Shape = shape(&o.Options, ss.pl, ss.sc.Name, ss.conns, ss.pipe)
	s.Shape.CPUsServer = ""
	s.Shape.Rounds = ss.rounds
	if cut != nil {
		s.Incomplete = measure.InterruptReason(ctx, cut)
	}
	stats.SummarizeScale(s)
	s.Finished = time.Now().UTC()
	raw := session.Raw{}
	for _, r := range s.Runs {
		raw.Runs = append(raw.Runs, r.Run)
	}
	werr := writeSession(ss.dir, s, raw, ss.st.man, o.Events)
	return Result[session.Scale]{Dir: ss.dir, Summary: s, WriteErr: werr}, nil
}

// CheckScale checks a scale's targets and thread counts before anything starts: at least one
// target, none twice; at least one thread count, each > 0, none twice, none above cpus.
func CheckScale(targets []string, threads []int, cpus int) error {
	if len(targets) == 0 {
		return setting.Errorf("{targets} is empty: name at least one target, e.g. {targets} binding,fasthttp")
	}
	if len(threads) == 0 {
		return setting.Errorf("{threads} is empty: give thread counts, e.g. {threads} 1,2")
	}
	if err := distinct(targets); err != nil {
		return err
	}
	for i, n := range threads {
		switch {
		case n <= 0:
			return setting.Errorf("{threads}: %d (a thread count is at least 1)", n)
		case n > cpus:
			return setting.Errorf("{threads}: %d threads asked, this machine has %d CPUs", n, cpus)
		case slices.Contains(threads[:i], n):
			return setting.Errorf("{threads}: %d listed twice", n)
		}
	}
	return nil
}

// ScaleCPUs is where a server with threads threads runs: the plan's server CPUs first, then
// the other CPUs the client does not use, then the client's (shared: true). ncpu bounds them.
func ScaleCPUs(threads int, server, client string, ncpu int) (cpus string, shared bool, err error) {
	order, err := cpuOrder(server, client, ncpu)
	if err != nil {
		return "", false, err
	}
	if threads > len(order) {
		return "", false, fmt.Errorf("%d threads asked, %d CPUs available", threads, len(order))
	}
	parts := make([]string, threads)
	for i, c := range order[:threads] {
		parts[i] = strconv.Itoa(c)
	}
	cpus = strings.Join(parts, ",")
	return cpus, machine.Overlap(cpus, client), nil
}

// cpuOrder lists 0..ncpu-1 as ScaleCPUs takes them.
func cpuOrder(server, client string, ncpu int) ([]int, error) {
	var srv, cli []int
	var err error
	if server != "" {
		if srv, err = machine.ParseCPUs(server); err != nil {
			return nil, err
		}
	}
	if client != "" {
		if cli, err = machine.ParseCPUs(client); err != nil {
			return nil, err
		}
	}
	order := slices.Clone(srv)
	for c := 0; c < ncpu; c++ {
		if !slices.Contains(order, c) && !slices.Contains(cli, c) {
			order = append(order, c)
		}
	}
	for _, c := range cli {
		if !slices.Contains(order, c) && c < ncpu {
			order = append(order, c)
		}
	}
	return order, nil
}

// newScaleSession checks o, sets the session up (setUp: the targets verified with the first
// thread count) and creates the session directory.
func newScaleSession(ctx context.Context, o *ScaleOptions) (*scaleSession, error) {
	if err := CheckScale(o.Targets, o.Threads, runtime.NumCPU()); err != nil {
		return nil, err
	}
	slices.Sort(o.Threads)
	pl, err := measure.NewPlan(o.Profile)
	if err != nil {
		return nil, err
	}
	races := o.Profile.Races()
	r := races[0]
	ss := &scaleSession{o: o, pl: pl, conns: r.Connections, pipe: r.Pipelining, rounds: max(1, o.Profile.Rounds)}
	if ss.sc, err = scenarioOf(r); err != nil {
		return nil, err
	}
	if len(races) > 1 {
		ss.warn = append(ss.warn, fmt.Sprintf("a scale covers one race: %s (connections %d, pipelining %d); the profile's other races were not run", r.Scenario, r.Connections, r.Pipelining))
	}
	for _, t := range o.Threads {
		if _, _, err := ScaleCPUs(t, pl.CPUsServer, pl.CPUsClient, runtime.NumCPU()); err != nil {
			return nil, setting.Errorf("{threads}: %v", err)
		}
	}
	ss.pl.Threads = o.Threads[0]
	ss.pl.CPUsServer, _, _ = ScaleCPUs(o.Threads[0], pl.CPUsServer, pl.CPUsClient, runtime.NumCPU())
	method := append(methodLines(ss.pl), fmt.Sprintf("scale: threads %s, %d round(s) per point, target order reversed every round and point; a point's figures are the medians of its runs", intsText(o.Threads), ss.rounds))
	cfg := measure.Config{Plan: ss.pl, Targets: o.Targets, GeneratorCPU: true}
	ss.st, err = setUp(ctx, &o.Options, cfg, []scenario.Scenario{ss.sc}, method, func(man *session.Manifest) {
		logWarnings(o.Events, &ss.warn, man)
		o.Events.Notef("scale %s: threads %s, profile %s, %s, %d round(s) × %s, client CPUs %q", strings.Join(o.Targets, ","), intsText(o.Threads), o.Profile.Name, racesText(races[:1]), ss.rounds, pl.Duration.D(), pl.CPUsClient)
	})
	if err != nil {
		return nil, err
	}
	if ss.dir, err = ss.st.makeDir(&o.Options, "scale", o.Targets); err != nil {
		return nil, err
	}
	return ss, nil
}

func intsText(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ",")
}

// points measures every point: thread counts ascending, rounds within each, the targets'
// order reversed from one round (and point) to the next. It stops at the first failed run or
// an interrupt, returning that as cut; the runs so far are kept.
func (ss *scaleSession) points(ctx context.Context) (runs []session.ScaleRun, cut error) {
	rig, k := ss.st.rig, 0
	total := len(ss.o.Threads) * ss.rounds * len(ss.o.Targets)
	for _, t := range ss.o.Threads {
		cpus, shared, err := ScaleCPUs(t, ss.pl.CPUsServer, ss.pl.CPUsClient, runtime.NumCPU())
		if err != nil {
			return runs, err
		}
		for r := 0; r < ss.rounds; r++ {
			order := slices.Clone(ss.o.Targets)
			if k%2 == 1 {
				slices.Reverse(order)
			}
			k++
			for slot, name := range order {
				label := fmt.Sprintf("threads %d round %d/%d %s", t, r+1, ss.rounds, name)
				run, err := rig.Run(ctx, measure.Spec{Target: name, Scenario: ss.sc, Connections: ss.conns, Pipelining: ss.pipe,
					Slot: slot, Label: label, Threads: t, CPUs: cpus})
				sr := session.ScaleRun{Run: run.Record, ServerThreads: t, Round: r, CPUsServer: cpus, CPUsClient: ss.pl.CPUsClient,
					SharedCPUs: shared, ClientCores: ss.pl.ClientWorkers(), ClientCPUPct: generatorPct(run)}
				runs = append(runs, sr)
				if err != nil {
					ss.o.Events.Notef("%s: %v", label, err)
					return runs, err
				}
				if sr.Run.Threads != 0 && sr.Run.Threads != t {
					ss.warn = append(ss.warn, fmt.Sprintf("%s served with %d threads when %d were asked", name, sr.Run.Threads, t))
				}
				if len(runs) < total {
					if err := rig.Cooldown(ctx, label); err != nil {
						return runs, err
					}
				}
			}
		}
	}
	return runs, nil
}

// generatorPct is the load generator's CPU over run's last window, % of one core (0 when no
// window closed).
func generatorPct(run measure.Run) float64 {
	for i := len(run.Windows) - 1; i >= 0; i-- {
		if g := run.Windows[i].Generator; g != nil {
			return g.Pct()
		}
	}
	return 0
}
