package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// Config is what a Rig measures with.
type Config struct {
	Plan    Plan
	Targets []string // every target the session runs; resolved once
	// Fleet runs the servers (its server host) and the load (its client hosts) on other hosts;
	// nil: everything here. The caller opens and closes it.
	Fleet     *fleet.Fleet
	ServerLog io.Writer // the servers' output; nil: discarded (the last lines come with a failure)
	Events    Events
	// GeneratorCPU reads the load generator's own CPU over every window (Window.Generator).
	GeneratorCPU bool
	// OnVerified hears each scenario of the preflight as it is checked (bindrace verify prints
	// them); nil: nothing does.
	OnVerified func(target, scenario string, err error)
}

// Rig measures the runs of one session: it holds the targets resolved, the servers it started
// and not yet stopped, the session's backend (its database, if it has one) and its probes.
type Rig struct {
	plan        Plan
	events      Events
	fleet       *fleet.Fleet
	serverLog   io.Writer
	servers     *servers
	targets     map[string]*targets.Target
	artefact    map[string]int64
	sides       map[string]session.Side // what preflight learnt of each target
	backend     backend
	db          *Database
	generator   bool
	unsupported *Unsupported
	rec         *recorder
	onVerified  func(target, scenario string, err error)
}

// NewRig resolves every target (an unknown name is an error naming it).
func NewRig(cfg Config) (*Rig, error) {
	r := &Rig{plan: cfg.Plan, events: cfg.Events, fleet: cfg.Fleet, serverLog: cfg.ServerLog, backend: plain{},
		servers: &servers{fleet: cfg.Fleet, serverLog: cfg.ServerLog, events: cfg.Events, living: map[Server]bool{}},
		targets: map[string]*targets.Target{}, artefact: map[string]int64{}, sides: map[string]session.Side{},
		generator: cfg.GeneratorCPU, unsupported: &Unsupported{}, onVerified: cfg.OnVerified}
	r.rec = &recorder{plan: r.plan, targets: r.targets, artefact: r.artefact, events: r.events, probes: r.probes}
	for _, n := range cfg.Targets {
		if _, ok := r.targets[n]; ok {
			continue
		}
		t, err := targets.Resolve(n)
		if err != nil {
			return nil, err
		}
		r.targets[n] = t
		if _, size, err := t.Artifact(); err == nil {
			r.artefact[n] = size
		}
	}
	return r, nil
}

// Close stops every server still running and the session's database.
func (r *Rig) Close() {
	r.servers.stopAll()
	if err := r.db.Close(); err != nil {
		r.events.Warnf("stopping PostgreSQL: %v", err)
	}
	r.db, r.backend = nil, plain{}
}

// Target is a resolved target of the session.
func (r *Rig) Target(name string) *targets.Target { return r.targets[name] }

// Side is what preflight learnt of a target, as a race's summary records it.
func (r *Rig) Side(name string) session.Side { return r.sides[name] }

// Unsupported are the counters the session could not read, with the reason.
func (r *Rig) Unsupported() *Unsupported { return r.unsupported }

// OpenDatabase opens the session's database when one of scs is a database scenario: runs of
// database scenarios then start on a fresh clone and are sampled with PostgreSQL. Open it after
// pinning the load generator (machine.PinSelf): a private PostgreSQL inherits its CPUs.
func (r *Rig) OpenDatabase(ctx context.Context, o DBOptions, scs []scenario.Scenario) error {
	for _, sc := range scs {
		if sc.Database != "" {
			d, err := OpenDatabase(ctx, o, r.plan.CPUsClient, r.events)
			if err != nil {
				return err
			}
			r.db, r.backend = d, d
			return nil
		}
	}
	return nil
}

// Database is the session's database, nil without one.
func (r *Rig) Database() *Database { return r.db }

// probes are the rig's probes in the order they open: the load generator's own CPU first (it
// must not count the other reads), the machine, the server's own counts, its CPU and RSS, a
// node server's runtime (its threads' sockets), the database's parties, the sampler, the system calls, perf_event counters last (around the
// least).
func (r *Rig) probes() []Probe {
	var ps []Probe
	if r.generator {
		ps = append(ps, generatorProbe{})
	}
	ps = append(ps, machineProbe{}, countsProbe{}, usageProbe{targets: r.targets, plan: r.plan}, nodeProbe{targets: r.targets}, gcProbe{targets: r.targets})
	if r.db != nil {
		ps = append(ps, dbProbe{d: r.db, plan: r.plan})
	}
	if r.plan.Sample {
		ps = append(ps, sampleProbe{unsupported: r.unsupported, cpus: r.plan.CPUsClient})
	}
	if r.plan.Syscalls {
		ps = append(ps, syscallProbe{unsupported: r.unsupported})
	}
	if r.plan.Perf {
		ps = append(ps, perfProbe{unsupported: r.unsupported})
	}
	return ps
}

// Preflight starts each target once and verifies every scenario of the session before anything
// is measured: a target that serves a wrong answer gets no number. It learns each target's build
// and the threads it serves with (Side).
func (r *Rig) Preflight(ctx context.Context, names []string, scs []scenario.Scenario) error {
	for _, name := range names {
		r.events.Notef("verifying %s (%s)", name, scenarioNames(scs))
		t := r.targets[name]
		build, err := t.Build()
		if err != nil {
			return err
		}
		srv, err := r.servers.start(ctx, t, r.plan, Spec{Target: name}, r.backend.Env())
		if err != nil {
			return err
		}
		var verr error
		for _, sc := range scs {
			err := r.backend.verify(ctx, name, srv.Addr(), []scenario.Scenario{sc})
			if r.onVerified != nil {
				r.onVerified(name, sc.Name, err)
			}
			verr = errors.Join(verr, err)
		}
		if verr != nil && ctx.Err() == nil && awaitExit(srv) {
			r.servers.stop(srv)
			return diedDuring(name, srv, "verification")
		}
		side := session.Side{Target: name, CPUs: r.plan.CPUsServer, Build: build}
		if inf, err := srv.Info(); err == nil {
			side.Threads = inf.Threads
		} else if t.TakesThreads() {
			side.Threads = r.plan.ServerThreads() // a cmd: target given {threads}, without the info route
		}
		r.sides[name] = side
		r.servers.stop(srv)
		if rerr := r.backend.verified(ctx, scs); rerr != nil && verr == nil {
			return rerr
		}
		if verr != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w during verification of %s", ErrInterrupted, name)
			}
			return fmt.Errorf("target %s failed verification: %w", name, verr)
		}
	}
	return nil
}

func scenarioNames(scs []scenario.Scenario) string {
	var n []string
	for _, s := range scs {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// Cooldown pauses between runs, less the busy sample that starts the next run (it counts
// towards the cooldown, which it ends). An error is an interrupt.
func (r *Rig) Cooldown(ctx context.Context, label string) error {
	rest := r.plan.Cooldown.D() - r.plan.BusySample.D()
	if rest <= 0 {
		if ctx.Err() != nil {
			return fmt.Errorf("%w during cooldown", ErrInterrupted)
		}
		return nil
	}
	r.events.Emit(Status{Label: label, Phase: "cooldown"})
	if !sleep(ctx, rest) {
		return fmt.Errorf("%w during cooldown", ErrInterrupted)
	}
	return nil
}

// sampleMachine reads the machine's busy and stolen time before a run or pair, for the plan's
// busy sample.
func sampleMachine(ctx context.Context, pl Plan, ev Events, label string) (busy, steal float64, err error) {
	if pl.BusySample <= 0 {
		return 0, 0, nil
	}
	ev.Emit(Status{Label: label, Phase: "sampling the machine"})
	busy, steal, err = machine.SampleBusy(ctx, pl.BusySample.D())
	if err != nil && ctx.Err() != nil {
		return 0, 0, ErrInterrupted
	}
	return round.To(busy, 2), round.To(steal, 2), nil
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func ms(d time.Duration) float64 { return round.To(float64(d)/float64(time.Millisecond), 2) }

func mib(b int64) float64 { return round.To(float64(b)/(1<<20), 2) }
