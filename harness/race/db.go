package race

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// DBOptions are the database of the database scenarios (the CLI's --db-url, --db-scale,
// --db-pool, --keys).
type DBOptions struct {
	URL   string  // an external server (a role that may create databases); "": a private cluster
	Scale float64 // the data set's scale, 0 < Scale <= 100 (1: the full data set)
	Pool  int     // connections per target, 1..1000; 0: db.DefaultPoolSize
	Keys  string  // how ids are drawn: uniform (""), hot or zipf
	Dir   string  // the private cluster's cache directory; "": build/pg (db.ClusterOptions.CacheDir)
	Log   io.Writer
}

// Check reports bad values with the flag they came from.
func (o DBOptions) Check() error {
	if !(o.Scale > 0 && o.Scale <= 100) {
		return fmt.Errorf("bad flag value --db-scale %v: want 0 < scale <= 100 (1 is the full data set)", o.Scale)
	}
	if o.Pool < 0 || o.Pool > 1000 {
		return fmt.Errorf("bad flag value --db-pool %d: want 1..1000", o.Pool)
	}
	if _, err := db.ParseKeyDist(o.Keys); err != nil {
		return fmt.Errorf("bad flag value --keys: %w", err)
	}
	return nil
}

// keySeed draws the ids: the same sequence for every run of every target.
const keySeed = 2

// dbState is the database of a session: the private cluster (nil with an external URL), the
// seeded template and trial database, the key sequences.
type dbState struct {
	o    DBOptions
	cl   *db.Cluster
	st   *db.Store
	keys map[string]*db.Keys // by scenario.KeyUsers / KeyOrders
	info session.DBInfo
}

// openDB starts the private cluster (unless o.URL), seeds or reuses the template and prepares
// the key sequences. It stops what it started when it fails.
func openDB(ctx context.Context, o DBOptions, clientCPUs string, prog *Progress) (_ *dbState, err error) {
	if o.Pool == 0 {
		o.Pool = db.DefaultPoolSize
	}
	dist, _ := db.ParseKeyDist(o.Keys)
	d := &dbState{o: o, info: session.DBInfo{Scale: o.Scale, Keys: string(dist), Pool: o.Pool, External: o.URL != ""}}
	defer func() {
		if err != nil {
			d.close() // what was started before the failure
		}
	}()
	url := o.URL
	if url == "" {
		prog.Logf("starting PostgreSQL (private cluster)")
		if d.cl, err = db.StartCluster(ctx, db.ClusterOptions{CacheDir: o.Dir, Log: o.Log}); err != nil {
			return nil, err
		}
		url, d.info.Version = d.cl.URL("postgres"), d.cl.Version
		d.info.PGCPUs = affinity(d.cl.Pid)
		d.info.SharesClient = d.info.PGCPUs != "" && machine.Overlap(d.info.PGCPUs, clientCPUs)
		if d.info.SharesClient {
			d.info.Notes = append(d.info.Notes, fmt.Sprintf("PostgreSQL runs on CPUs %q and shares the load generator's (%q): their CPU figures compete, and the bottleneck names the client CPUs when both together fill them", d.info.PGCPUs, clientCPUs))
		}
	} else {
		d.info.Notes = append(d.info.Notes, "external database (--db-url): its resources are not sampled")
	}
	prog.Logf("database: scale %g (seeding the template if it is missing)", o.Scale)
	if d.st, err = db.Open(ctx, db.Options{URL: url, Scale: o.Scale, Progress: o.Log}); err != nil {
		return nil, err
	}
	if _, err = d.st.Reset(ctx); err != nil { // the trial database preflight verifies on
		return nil, err
	}
	d.info.SeedS = round2(d.st.SeedTime.Seconds())
	sz := d.st.Dataset.Sizes
	d.info.Users, d.info.Orders = sz.Users, sz.Orders
	d.keys = map[string]*db.Keys{}
	for table, max := range map[string]int64{scenario.KeyUsers: sz.Users, scenario.KeyOrders: sz.Orders} {
		if d.keys[table], err = db.NewKeys(db.KeyOptions{Dist: dist, Min: 1, Max: max, Seed: keySeed}); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// close closes the store and stops the private cluster (waiting for it to be gone).
func (d *dbState) close() error {
	var errs []error
	if d.st != nil {
		errs = append(errs, d.st.Close())
		d.st = nil
	}
	if d.cl != nil {
		errs = append(errs, d.cl.Stop())
		d.cl = nil
	}
	return errors.Join(errs...)
}

// env is what a target needs to serve from the trial database.
func (d *dbState) env() []string {
	return []string{db.EnvURL + "=" + d.st.URL(), db.EnvPool + "=" + strconv.Itoa(d.o.Pool)}
}

// check is what VerifyDB checks against.
func (d *dbState) check() targets.DBCheck {
	return targets.DBCheck{URL: d.st.URL(), Sizes: d.st.Dataset.Sizes}
}

// build renders sc's requests for addr with an id from the sequence of sc's table.
func (d *dbState) build(sc scenario.Scenario, addr string) load.BuildFunc {
	keys := d.keys[sc.Database]
	return func(dst []byte, seq uint64) []byte { return sc.AppendRequest(dst, addr, keys.At(seq)) }
}

// affinity is the CPU list pid may run on ("" when unknown).
func affinity(pid int) string {
	var set unix.CPUSet
	if unix.SchedGetaffinity(pid, &set) != nil {
		return ""
	}
	var cpus []string
	for i := 0; i < runtime.NumCPU()*2 && i < 1024; i++ {
		if set.IsSet(i) {
			cpus = append(cpus, strconv.Itoa(i))
		}
	}
	return strings.Join(cpus, ",")
}

// selfUsage is the harness's own CPU time and RSS: the load generator's during a window.
func selfUsage() (procfs.Usage, error) { return procfs.ReadUsage(procfs.Self) }

// VerifyDB is the database `bindrace verify` checks the database scenarios against: opened as
// a race opens it (private cluster or o.URL, the template, a fresh trial database). Close
// stops what it started.
type VerifyDB struct{ d *dbState }

// OpenVerifyDB opens it; progress lines go to stderr.
func OpenVerifyDB(ctx context.Context, o DBOptions, stderr io.Writer) (*VerifyDB, error) {
	if err := o.Check(); err != nil {
		return nil, err
	}
	d, err := openDB(ctx, o, "", NewProgress(stderr))
	if err != nil {
		return nil, err
	}
	return &VerifyDB{d: d}, nil
}

func (v *VerifyDB) Env() []string          { return v.d.env() }
func (v *VerifyDB) Check() targets.DBCheck { return v.d.check() }
func (v *VerifyDB) Close() error           { return v.d.close() }

// Reset clones the trial database afresh.
func (v *VerifyDB) Reset(ctx context.Context) error {
	_, err := v.d.st.Reset(ctx)
	return err
}
