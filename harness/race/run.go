package race

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// Plan is how every run of a session is measured (a profile after the flags).
type Plan struct {
	Profile     string
	Connections int
	Pipelining  int
	Workers     int
	Threads     int // server threads; 0 = one per server CPU
	Warmup      time.Duration
	Duration    time.Duration
	Settle      time.Duration
	Cooldown    time.Duration
	Windows     int // measured windows per run; > 1: both servers of a pair live, windows interleaved
	CPUsServer  string
	CPUsClient  string
	Loadgen     string        // builtin or wrk
	Perf        bool          // perf_event counters per run
	BusySample  time.Duration // machine idle/steal read before each run
	// StartTimeout bounds spawn-to-first-valid-response (uws needs node to start).
	StartTimeout time.Duration
	// WarmupRequests > 0: every run first sends exactly this many requests, all successful.
	WarmupRequests int64
	LagTolerance   time.Duration // open loops: send lag p99 above which a run is generator-bound; 0 = the engine's 1 ms
}

// serverThreads is the thread count passed to a server.
func (p Plan) serverThreads() int {
	if p.Threads > 0 {
		return p.Threads
	}
	return machine.CountCPUs(p.CPUsServer)
}

// allottedCores is how many cores the server could keep busy: its CPUs, or fewer threads.
func (p Plan) allottedCores() float64 {
	n := machine.CountCPUs(p.CPUsServer)
	if t := p.serverThreads(); t > 0 && t < n {
		n = t
	}
	return float64(n)
}

// clientWorkers caps the workers to the client's CPUs (release-linux asks for 4; a 2-core
// machine has one client CPU).
func (p Plan) clientWorkers() int {
	w := p.Workers
	if w <= 0 {
		w = 1
	}
	if n := machine.CountCPUs(p.CPUsClient); w > n {
		w = n
	}
	return w
}

// ClientBoundFraction: a server using less than this share of its allotted cores during the
// window was not saturated, so the load generator limited the run.
const ClientBoundFraction = 0.90

// ErrTargetDied is wrapped when a server process exits during a run.
var ErrTargetDied = errors.New("target exited during the run")

type diedError struct{ msg string }

func (e diedError) Error() string        { return e.msg }
func (e diedError) Is(target error) bool { return target == ErrTargetDied }

// ErrInterrupted is wrapped when the session was cancelled (SIGINT/SIGTERM).
var ErrInterrupted = errors.New("interrupted")

// engine runs the measurements of one session.
type engine struct {
	plan     Plan
	prog     *Progress
	log      io.Writer // server output
	resolved map[string]*targets.Target
	artefact map[string]int64

	mu   sync.Mutex
	live map[server]bool // servers started and not yet stopped
	// fleet runs servers and load generators on other hosts (nil: all here)
	fleet *fleet.Fleet

	unsupported map[string]string // counters that could not be read, with the reason
	info        map[string]targetInfo
	db          *dbState // the database scenarios' database, when the session has one
}

// targetInfo is what preflight learnt of a target: the conditions a race compares.
type targetInfo struct {
	threads int               // what the server reported serving with; 0 = unknown
	build   map[string]string // targets.Target.Build
}

func newEngine(plan Plan, prog *Progress, log io.Writer) *engine {
	if log == nil {
		log = io.Discard
	}
	return &engine{plan: plan, prog: prog, log: log, resolved: map[string]*targets.Target{},
		artefact: map[string]int64{}, live: map[server]bool{}, unsupported: map[string]string{},
		info: map[string]targetInfo{}}
}

// resolve resolves every name once; an unknown name is an error naming it.
func (e *engine) resolve(names ...string) error {
	for _, n := range names {
		if _, ok := e.resolved[n]; ok {
			continue
		}
		t, err := targets.Resolve(n)
		if err != nil {
			return err
		}
		e.resolved[n] = t
		if _, size, err := t.Artifact(); err == nil {
			e.artefact[n] = size
		}
	}
	return nil
}

func (e *engine) start(ctx context.Context, name string) (server, error) {
	srv, err := e.startHere(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("target %s: %w while starting", name, ErrInterrupted)
		}
		return nil, fmt.Errorf("target %s failed to start: %w", name, err)
	}
	e.mu.Lock()
	e.live[srv] = true
	e.mu.Unlock()
	return srv, nil
}

// startHere starts name on the fleet's server host, or here.
func (e *engine) startHere(ctx context.Context, name string) (server, error) {
	if e.fleet != nil && e.fleet.Server != nil {
		return e.startRemote(ctx, name)
	}
	t := e.resolved[name]
	srv, err := t.Start(ctx, targets.StartOptions{
		Threads:      e.plan.serverThreads(),
		CPUs:         e.plan.CPUsServer,
		StartTimeout: e.plan.StartTimeout,
		Log:          e.log,
		Env:          e.dbEnv(),
	})
	if err != nil {
		return nil, err
	}
	return localServer{srv}, nil
}

func (e *engine) stop(srv server) {
	e.mu.Lock()
	live := e.live[srv]
	delete(e.live, srv)
	e.mu.Unlock()
	if live {
		if err := srv.Stop(); err != nil {
			e.prog.Logf("warning: stopping %s (pid %d): %v", srv.name(), srv.pid(), err)
		}
	}
}

// stopAll stops every server still running (the safety net behind each run's own Stop).
func (e *engine) stopAll() {
	e.mu.Lock()
	var all []server
	for s := range e.live {
		all = append(all, s)
	}
	e.mu.Unlock()
	for _, s := range all {
		e.stop(s)
	}
}

// preflight starts each target once and verifies every scenario of the session before
// anything is measured: a target that serves a wrong answer gets no number. It also learns each
// target's build and the threads it serves with (e.info).
func (e *engine) preflight(ctx context.Context, names []string, scs []scenario.Scenario) error {
	for _, n := range names {
		e.prog.Logf("verifying %s (%s)", n, scenarioNames(scs))
		build, err := e.resolved[n].Build()
		if err != nil {
			return err
		}
		srv, err := e.start(ctx, n)
		if err != nil {
			return err
		}
		verr := e.verifyAll(ctx, n, srv.Addr(), scs)
		ti := targetInfo{build: build}
		if inf, err := srv.Info(); err == nil {
			ti.threads = inf.Threads
		} else if e.resolved[n].TakesThreads() {
			ti.threads = e.plan.serverThreads() // a cmd: target given {threads}, without the info route
		}
		e.info[n] = ti
		e.stop(srv)
		if rerr := e.resetAfterVerify(ctx, scs); rerr != nil && verr == nil {
			return rerr
		}
		if verr != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w during verification of %s", ErrInterrupted, n)
			}
			return fmt.Errorf("target %s failed verification: %w", n, verr)
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

// driver returns what drives rs's load against addr for a warm-up and a measured window:
// harness/load (or wrk, with loadgen wrk, for HTTP scenarios). A WebSocket scenario's Result
// counts echoed messages, so Run.RPS is messages/s there.
func (e *engine) driver(rs runSpec, addr string) func(ctx context.Context, warmup, duration time.Duration, h load.Hooks) (*load.Result, error) {
	if e.fleet != nil && len(e.fleet.Clients) > 0 {
		return e.remoteDriver(rs, addr)
	}
	cfg, run := e.loadConfig(rs, addr)
	return func(ctx context.Context, warmup, duration time.Duration, h load.Hooks) (*load.Result, error) {
		cfg.Warmup, cfg.Duration = warmup, duration
		return run(ctx, cfg, h)
	}
}

// loadConfig is rs's load against addr and what drives it (load.Run, or load.RunWrk).
func (e *engine) loadConfig(rs runSpec, addr string) (load.Config, func(context.Context, load.Config, load.Hooks) (*load.Result, error)) {
	cfg := load.Config{Addr: addr, Requests: [][]byte{rs.sc.Request(addr)},
		Connections: rs.connections, Pipelining: rs.pipelining, Workers: e.plan.clientWorkers(), Timeout: 10 * time.Second,
		Rate: rs.rate, LagTolerance: e.plan.LagTolerance}
	run := load.Run
	switch {
	case rs.sc.Database != "":
		cfg.Requests, cfg.Build = nil, e.db.build(rs.sc, addr)
	case rs.sc.WebSocket():
		cfg.Protocol, cfg.Requests, cfg.Host, cfg.Path, cfg.Size = load.WebSocket, nil, addr, rs.sc.Path, len(rs.sc.Body)
	case e.plan.Loadgen == "wrk":
		run = load.RunWrk
	}
	return cfg, run
}

// rateUnit is what a run of sc measures per second, as progress and log lines print it.
func rateUnit(sc scenario.Scenario) string {
	if u := unitOf(sc); u != "" {
		return u
	}
	return "rps"
}

// unitOf is the Unit a session of sc records: "" for HTTP (responses/s, the default),
// "messages/s" for WebSocket scenarios.
func unitOf(sc scenario.Scenario) string {
	if sc.WebSocket() {
		return load.UnitMessages
	}
	return ""
}

func (e *engine) status(rs runSpec, phase string, elapsed time.Duration, rate float64) {
	e.prog.Status(rs.label, phase, elapsed, rate, rateUnit(rs.sc))
}

// cooldown pauses between runs, less the busy sample that starts the next run (Run.BusyPct,
// StealPct): it counts towards the cooldown, which it ends. False if the session was cancelled.
func (e *engine) cooldown(ctx context.Context, label string) bool {
	rest := e.plan.Cooldown - e.plan.BusySample
	if rest <= 0 {
		return ctx.Err() == nil
	}
	e.prog.Status(label, "cooldown", 0, 0, "")
	return sleep(ctx, rest)
}

func (e *engine) unsupportedCounters() map[string]string {
	if len(e.unsupported) == 0 {
		return nil
	}
	out := make(map[string]string, len(e.unsupported))
	keys := make([]string, 0, len(e.unsupported))
	for k := range e.unsupported {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out[k] = e.unsupported[k]
	}
	return out
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

func ms(d time.Duration) float64 { return round2(float64(d) / float64(time.Millisecond)) }

func mib(b int64) float64 { return round2(float64(b) / (1 << 20)) }

func round2(v float64) float64 {
	if v < 0 {
		return -round2(-v)
	}
	return float64(int64(v*100+0.5)) / 100
}
