package measure

import (
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
)

// BottleneckFraction: a party using this share of its CPU allotment or more during the window
// is named the run's bottleneck.
const BottleneckFraction = 0.90

// DBWindow is what a window of a database scenario read of the two parties besides the server:
// PostgreSQL and the load generator at its edges, and all three once a second.
type DBWindow struct {
	Start, End dbSample
	Wall       time.Duration
	Series     session.DBSeries
}

// dbSample is one edge of a window for PostgreSQL and the load generator.
type dbSample struct {
	pg     db.Usage
	pgErr  error
	self   procfs.Usage
	selfOK bool
}

// dbProbe reads PostgreSQL's and the load generator's resources during the windows of
// database scenarios; plan is the session's (the allotments the bottleneck weighs).
type dbProbe struct {
	d    *Database
	plan Plan
}

// sample reads PostgreSQL's (a private cluster's) and the load generator's usage.
func (p dbProbe) sample() (s dbSample) {
	if p.d.cl != nil {
		s.pg, s.pgErr = p.d.cl.Usage()
	}
	self, err := selfUsage()
	s.self, s.selfOK = self, err == nil
	return s
}

type dbReading struct {
	p       dbProbe
	start   dbSample
	at      time.Time
	sampler *dbSampler
}

func (p dbProbe) Open(srv Server, spec Spec) Reading {
	if spec.Scenario.Database == "" {
		return nil
	}
	return &dbReading{p: p, start: p.sample(), sampler: p.startSampler(srv), at: time.Now()}
}

func (r *dbReading) Close(w *Window) error {
	wall := time.Since(r.at)
	end := r.p.sample()
	w.DB = &DBWindow{Start: r.start, End: end, Wall: wall, Series: r.sampler.stop()}
	return nil
}

// Record writes the run's DBRun: the reset before it, resources as % of one core over the
// windows, the per-second series, and the bottleneck.
func (p dbProbe) Record(rec *session.Run, run *Run, kept []Window) {
	if run.Spec.Scenario.Database == "" {
		return
	}
	d := &session.DBRun{ResetMs: ms(run.Prepared), External: p.d.cl == nil, Bottleneck: "none"}
	rec.DB = d
	var wall, pgCPU, clientCPU float64
	var clientRSS int64
	var pg db.Usage
	sampled, pgSampled := false, false
	for _, w := range kept {
		x := w.DB
		if !w.Closed || x == nil || !x.Start.selfOK || !x.End.selfOK {
			continue
		}
		appendSeries(&d.PerSecond, x.Series)
		wall += x.Wall.Seconds()
		clientCPU += x.End.self.CPUSeconds - x.Start.self.CPUSeconds
		clientRSS = max(clientRSS, x.End.self.RSSBytes)
		sampled = true
		if x.Start.pgErr == nil && x.End.pgErr == nil && x.End.pg.Processes > 0 {
			pgCPU += x.End.pg.CPUSeconds - x.Start.pg.CPUSeconds
			pg, pgSampled = x.End.pg, true
		}
	}
	if !sampled || wall <= 0 {
		return
	}
	d.ClientCPUPct, d.ClientRSSMiB = round.To(clientCPU/wall*100, 2), mib(clientRSS)
	if pgSampled {
		d.PGCPUPct = round.To(pgCPU/wall*100, 2)
		d.PGRSSMiB, d.PGPSSMiB, d.PGProcesses = mib(pg.RSSBytes), mib(pg.PSSBytes), pg.Processes
	}
	d.Bottleneck = p.bottleneck(rec, d, p.plan.of(run.Spec))
}

// appendSeries appends a window's once-a-second samples to a run's.
func appendSeries(s *session.DBSeries, w session.DBSeries) {
	s.ServerCPUPct, s.ServerRSSMiB = append(s.ServerCPUPct, w.ServerCPUPct...), append(s.ServerRSSMiB, w.ServerRSSMiB...)
	s.PGCPUPct, s.PGPSSMiB = append(s.PGCPUPct, w.PGCPUPct...), append(s.PGPSSMiB, w.PGPSSMiB...)
	s.ClientCPUPct, s.ClientRSSMiB = append(s.ClientCPUPct, w.ClientCPUPct...), append(s.ClientRSSMiB, w.ClientRSSMiB...)
}

// loadGenerator is the bottleneck's name for the harness's own load generator.
const loadGenerator = "load generator"

// databasePaced reports a database-scenario run whose pace the load generator did not set,
// though its server was unsaturated: the probe read the generator's CPU and found it was not the
// bottleneck. PostgreSQL set the pace then, alone or with the generator on the CPUs they share,
// or the round trip of a few connections did. Such a run is not client-bound: its throughput is
// what the shape serves, and raising it to a saturated server's bound would credit the server
// with headroom nothing could use. (Before, every run of a db race counted as client-bound, at
// 6-60% server CPU, and its bound widened the throughput intervals to hundreds of points: issue
// 36, docs/statistics.md.)
func databasePaced(d *session.DBRun) bool {
	return d != nil && d.ClientCPUPct > 0 && d.Bottleneck != loadGenerator
}

// bottleneck names the party using the largest share of its CPU allotment if that share is
// BottleneckFraction or more: the server (its allotted cores), PostgreSQL (the CPUs it may
// run on), the load generator (its CPUs), or "client CPUs" when PostgreSQL shares the load
// generator's CPUs and the two together fill them.
func (p dbProbe) bottleneck(rec *session.Run, d *session.DBRun, pl Plan) string {
	client := float64(machine.CountCPUs(pl.CPUsClient))
	type party struct {
		name  string
		share float64
	}
	parties := []party{
		{"server", rec.ServerCPUPct / 100 / pl.AllottedCores()},
		{loadGenerator, d.ClientCPUPct / 100 / client},
	}
	if !d.External {
		if n := float64(machine.CountCPUs(p.d.info.PGCPUs)); n > 0 {
			parties = append(parties, party{"postgres", d.PGCPUPct / 100 / n})
		}
		if p.d.info.SharesClient {
			parties = append(parties, party{"client CPUs (load generator + postgres)", (d.ClientCPUPct + d.PGCPUPct) / 100 / client})
		}
	}
	best := party{"none", 0}
	for _, x := range parties {
		if x.share >= BottleneckFraction && x.share > best.share {
			best = x
		}
	}
	return best.name
}

// dbSampler reads the three parties' CPU and RSS once a second during a window of a database
// scenario: the per-second series the run records beside the window's averages.
type dbSampler struct {
	stopc chan struct{}
	done  sync.WaitGroup
	s     session.DBSeries
}

// startSampler starts sampling srv, PostgreSQL and the load generator.
func (p dbProbe) startSampler(srv Server) *dbSampler {
	ds := &dbSampler{stopc: make(chan struct{})}
	ds.done.Add(1)
	go func() {
		defer ds.done.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		prevT, prevSrv, prevDB := time.Now(), usageOrZero(srv), p.sample()
		for {
			select {
			case <-ds.stopc:
				return
			case now := <-t.C:
				su, du := usageOrZero(srv), p.sample()
				secs := now.Sub(prevT).Seconds()
				pct := func(a, b float64) float64 { return round.To((b-a)/secs*100, 2) }
				ds.s.ServerCPUPct = append(ds.s.ServerCPUPct, pct(prevSrv.CPUSeconds, su.CPUSeconds))
				ds.s.ServerRSSMiB = append(ds.s.ServerRSSMiB, mib(su.RSSBytes))
				ds.s.ClientCPUPct = append(ds.s.ClientCPUPct, pct(prevDB.self.CPUSeconds, du.self.CPUSeconds))
				ds.s.ClientRSSMiB = append(ds.s.ClientRSSMiB, mib(du.self.RSSBytes))
				if p.d.cl != nil && du.pgErr == nil && prevDB.pgErr == nil {
					ds.s.PGCPUPct = append(ds.s.PGCPUPct, pct(prevDB.pg.CPUSeconds, du.pg.CPUSeconds))
					ds.s.PGPSSMiB = append(ds.s.PGPSSMiB, mib(du.pg.PSSBytes))
				}
				prevT, prevSrv, prevDB = now, su, du
			}
		}
	}()
	return ds
}

// stop ends the sampling and returns the series.
func (ds *dbSampler) stop() session.DBSeries {
	close(ds.stopc)
	ds.done.Wait()
	return ds.s
}

func usageOrZero(srv Server) procfs.Usage {
	u, _ := srv.Usage()
	return u
}
