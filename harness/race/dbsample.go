package race

import (
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/session"
)

// dbSampler reads the three parties' CPU and RSS once a second during a window of a database
// scenario: the per-second series the run records beside the window's averages.
type dbSampler struct {
	stopc chan struct{}
	done  sync.WaitGroup
	s     session.DBSeries
}

// startDBSampler starts sampling srv, PostgreSQL and the load generator; nil when the session
// has no database.
func (e *engine) startDBSampler(srv server) *dbSampler {
	if e.db == nil {
		return nil
	}
	ds := &dbSampler{stopc: make(chan struct{})}
	ds.done.Add(1)
	go func() {
		defer ds.done.Done()
		t := time.NewTicker(time.Second)
		defer t.Stop()
		prevT, prevSrv, prevDB := time.Now(), usageOrZero(srv), e.sampleDB()
		for {
			select {
			case <-ds.stopc:
				return
			case now := <-t.C:
				su, du := usageOrZero(srv), e.sampleDB()
				secs := now.Sub(prevT).Seconds()
				pct := func(a, b float64) float64 { return round2((b - a) / secs * 100) }
				ds.s.ServerCPUPct = append(ds.s.ServerCPUPct, pct(prevSrv.CPUSeconds, su.CPUSeconds))
				ds.s.ServerRSSMiB = append(ds.s.ServerRSSMiB, mib(su.RSSBytes))
				ds.s.ClientCPUPct = append(ds.s.ClientCPUPct, pct(prevDB.self.CPUSeconds, du.self.CPUSeconds))
				ds.s.ClientRSSMiB = append(ds.s.ClientRSSMiB, mib(du.self.RSSBytes))
				if e.db.cl != nil && du.pgErr == nil && prevDB.pgErr == nil {
					ds.s.PGCPUPct = append(ds.s.PGCPUPct, pct(prevDB.pg.CPUSeconds, du.pg.CPUSeconds))
					ds.s.PGPSSMiB = append(ds.s.PGPSSMiB, mib(du.pg.PSSBytes))
				}
				prevT, prevSrv, prevDB = now, su, du
			}
		}
	}()
	return ds
}

// stop ends the sampling and returns the series (nil-safe).
func (ds *dbSampler) stop() session.DBSeries {
	if ds == nil {
		return session.DBSeries{}
	}
	close(ds.stopc)
	ds.done.Wait()
	return ds.s
}

func usageOrZero(srv server) procfs.Usage {
	u, _ := srv.Usage()
	return u
}
