package race

import (
	"context"
	"errors"
	"fmt"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// BottleneckFraction: a party using this share of its CPU allotment or more during the window
// is named the run's bottleneck.
const BottleneckFraction = 0.90

// dbSample is one edge of a window for the two parties besides the server.
type dbSample struct {
	pg     db.Usage
	pgErr  error
	self   procfs.Usage
	selfOK bool
}

// dbTally sums a run's windows for its DBRun.
type dbTally struct {
	resetMs            float64
	pgCPU, clientCPU   float64
	wall               float64
	pg                 db.Usage // the last window's end: memory and processes
	clientRSS          int64
	sampled, pgSampled bool
	series             session.DBSeries
}

// dbEnv is the environment a target gets: the trial database when the session has one.
func (e *engine) dbEnv() []string {
	if e.db == nil {
		return nil
	}
	return e.db.env()
}

// sampleDB reads PostgreSQL's and the load generator's usage at a window's edge.
func (e *engine) sampleDB() (s dbSample) {
	if e.db == nil {
		return s
	}
	if e.db.cl != nil {
		s.pg, s.pgErr = e.db.cl.Usage()
	}
	self, err := selfUsage()
	s.self, s.selfOK = self, err == nil
	return s
}

// resetDB clones the trial database afresh before a run of a database scenario (its server
// is not started yet, so nothing holds a connection to it).
func (e *engine) resetDB(ctx context.Context, rs runSpec) (float64, error) {
	if rs.sc.Database == "" || e.db == nil {
		return 0, nil
	}
	e.status(rs, "resetting the database", 0, 0)
	took, err := e.db.st.Reset(ctx)
	if err != nil {
		return 0, fmt.Errorf("resetting the database before %s: %w", rs.label, err)
	}
	return ms(took), nil
}

// verifyRun checks a run's scenario on its fresh server: against the database for a database
// scenario (deterministic: every run's check writes the same order), else Verify.
func (e *engine) verifyRun(ctx context.Context, rs runSpec, addr string) error {
	scs := []scenario.Scenario{rs.sc}
	if rs.sc.Database != "" {
		return targets.VerifyDB(ctx, rs.target, addr, scs, e.db.check())
	}
	return targets.Verify(ctx, rs.target, addr, scs)
}

func (t *dbTally) add(w windowSample) {
	d0, d1 := w.db0, w.db1
	if !w.closed || !d0.selfOK || !d1.selfOK {
		return
	}
	s := &t.series
	s.ServerCPUPct, s.ServerRSSMiB = append(s.ServerCPUPct, w.series.ServerCPUPct...), append(s.ServerRSSMiB, w.series.ServerRSSMiB...)
	s.PGCPUPct, s.PGPSSMiB = append(s.PGCPUPct, w.series.PGCPUPct...), append(s.PGPSSMiB, w.series.PGPSSMiB...)
	s.ClientCPUPct, s.ClientRSSMiB = append(s.ClientCPUPct, w.series.ClientCPUPct...), append(s.ClientRSSMiB, w.series.ClientRSSMiB...)
	secs := w.t1.Sub(w.t0).Seconds()
	t.wall += secs
	t.clientCPU += d1.self.CPUSeconds - d0.self.CPUSeconds
	t.clientRSS = max(t.clientRSS, d1.self.RSSBytes)
	t.sampled = true
	if d0.pgErr == nil && d1.pgErr == nil && d1.pg.Processes > 0 {
		t.pgCPU += d1.pg.CPUSeconds - d0.pg.CPUSeconds
		t.pg = d1.pg
		t.pgSampled = true
	}
}

// into writes the run's DBRun: resources as % of one core over the windows, and the
// bottleneck.
func (t *dbTally) into(run *session.Run, e *engine) {
	if e.db == nil || run.Scenario == "" {
		return
	}
	if sc, _ := scenario.ByName(run.Scenario); sc.Database == "" {
		return
	}
	d := &session.DBRun{ResetMs: t.resetMs, External: e.db.cl == nil, Bottleneck: "none", PerSecond: t.series}
	run.DB = d
	if !t.sampled || t.wall <= 0 {
		return
	}
	d.ClientCPUPct = round2(t.clientCPU / t.wall * 100)
	d.ClientRSSMiB = mib(t.clientRSS)
	if t.pgSampled {
		d.PGCPUPct = round2(t.pgCPU / t.wall * 100)
		d.PGRSSMiB, d.PGPSSMiB, d.PGProcesses = mib(t.pg.RSSBytes), mib(t.pg.PSSBytes), t.pg.Processes
	}
	d.Bottleneck = e.bottleneck(run, d)
}

// bottleneck names the party using the largest share of its CPU allotment if that share is
// BottleneckFraction or more: the server (its allotted cores), PostgreSQL (the CPUs it may
// run on), the load generator (its CPUs), or "client CPUs" when PostgreSQL shares the load
// generator's CPUs and the two together fill them.
func (e *engine) bottleneck(run *session.Run, d *session.DBRun) string {
	client := float64(machine.CountCPUs(e.plan.CPUsClient))
	type party struct {
		name  string
		share float64
	}
	parties := []party{
		{"server", run.ServerCPUPct / 100 / e.plan.allottedCores()},
		{"load generator", d.ClientCPUPct / 100 / client},
	}
	if !d.External {
		if n := float64(machine.CountCPUs(e.db.info.PGCPUs)); n > 0 {
			parties = append(parties, party{"postgres", d.PGCPUPct / 100 / n})
		}
		if e.db.info.SharesClient {
			parties = append(parties, party{"client CPUs (load generator + postgres)", (d.ClientCPUPct + d.PGCPUPct) / 100 / client})
		}
	}
	best := party{"none", 0}
	for _, p := range parties {
		if p.share >= BottleneckFraction && p.share > best.share {
			best = p
		}
	}
	return best.name
}

// dbInfo is the summary's Database for a database scenario, nil otherwise.
func (e *engine) dbInfo(sc scenario.Scenario) *session.DBInfo {
	if e.db == nil || sc.Database == "" {
		return nil
	}
	info := e.db.info
	return &info
}

// checkDBSession refuses what cannot run a database scenario, before anything starts.
func checkDBSession(o Options, pl Plan, names []string, scs []scenario.Scenario) error {
	var dbs []string
	for _, sc := range scs {
		if sc.Database != "" {
			dbs = append(dbs, sc.Name)
		}
	}
	if len(dbs) == 0 {
		return nil
	}
	if err := o.DB.Check(); err != nil {
		return err
	}
	if pl.Loadgen == "wrk" {
		return fmt.Errorf("--loadgen wrk cannot fill ids per request: the database scenarios (%v) need the built-in load generator", dbs)
	}
	if o.Fleet != nil {
		return fmt.Errorf("the database scenarios (%v) run on this machine only: its private PostgreSQL is not reachable from --server-host/--client-hosts", dbs)
	}
	if pl.Windows > 1 {
		return fmt.Errorf("--windows %d: the database scenarios (%v) reset the database before every run, so one server runs at a time (--windows 1)", pl.Windows, dbs)
	}
	for _, n := range names {
		t, err := targets.Resolve(n)
		if err == nil && t.Kind == targets.KindBinding && t.Static() {
			return fmt.Errorf("target %s answers in C++ only and has no database routes: the database scenarios (%v) need binding or binding-plain", n, dbs)
		}
	}
	return nil
}

// verifyAll is preflight's check of every scenario of the session on a fresh server: the
// database scenarios against the database, the others with Verify.
func (e *engine) verifyAll(ctx context.Context, target, addr string, scs []scenario.Scenario) error {
	var plain, dbs []scenario.Scenario
	for _, sc := range scs {
		if sc.Database != "" {
			dbs = append(dbs, sc)
		} else {
			plain = append(plain, sc)
		}
	}
	var errs []error
	if len(plain) > 0 {
		errs = append(errs, targets.Verify(ctx, target, addr, plain))
	}
	if len(dbs) > 0 {
		errs = append(errs, targets.VerifyDB(ctx, target, addr, dbs, e.db.check()))
	}
	return errors.Join(errs...)
}

// resetAfterVerify resets the database after preflight verified a target (create-order
// wrote), so the next target is verified on the same data.
func (e *engine) resetAfterVerify(ctx context.Context, scs []scenario.Scenario) error {
	for _, sc := range scs {
		if sc.Database != "" && e.db != nil {
			if _, err := e.db.st.Reset(ctx); err != nil {
				return fmt.Errorf("resetting the database after verification: %w", err)
			}
			return nil
		}
	}
	return nil
}

// openSessionDB opens the session's database when one of scs is a database scenario.
func (e *engine) openSessionDB(ctx context.Context, o DBOptions, scs []scenario.Scenario) error {
	for _, sc := range scs {
		if sc.Database != "" {
			d, err := openDB(ctx, o, e.plan.CPUsClient, e.prog)
			if err != nil {
				return err
			}
			e.db = d
			return nil
		}
	}
	return nil
}

// closeDB stops the session's database (idempotent).
func (e *engine) closeDB() {
	if e.db == nil {
		return
	}
	if err := e.db.close(); err != nil {
		e.prog.Logf("warning: stopping PostgreSQL: %v", err)
	}
	e.db = nil
}

// warmCount sends the plan's WarmupRequests (Count mode) before the timed warm-up; every one
// must succeed.
func (e *engine) warmCount(ctx context.Context, lv *live) error {
	n := e.plan.WarmupRequests
	if n <= 0 {
		return nil
	}
	e.status(lv.rs, fmt.Sprintf("warm-up: %d requests", n), 0, 0)
	res, err := lv.count(lv.ctx, n)
	if err == nil && res != nil && len(res.Errors) > 0 {
		err = fmt.Errorf("%d warm-up requests did not all succeed: %v", n, res.Errors)
	}
	if err != nil || lv.died() || ctx.Err() != nil {
		return e.failure(ctx, lv, "warm-up", err)
	}
	return nil
}

// counter sends exactly n of rs's requests to addr with the built-in load generator.
func (e *engine) counter(rs runSpec, addr string) func(ctx context.Context, n int64) (*load.Result, error) {
	cfg, _ := e.loadConfig(rs, addr)
	return func(ctx context.Context, n int64) (*load.Result, error) {
		c := cfg
		c.Count = n
		return load.Run(ctx, c, load.Hooks{})
	}
}
