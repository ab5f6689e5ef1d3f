package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/setting"
	"github.com/bindrace/bindrace/harness/targets"
)

// DBOptions are the database of the database scenarios.
type DBOptions struct {
	URL   string  // an external server (a role that may create databases); "": a private cluster
	Scale float64 // the data set's scale, 0 < Scale <= 100 (1: the full data set)
	Pool  int     // connections per target, 1..1000; 0: db.DefaultPoolSize
	Keys  string  // how ids are drawn: uniform (""), hot or zipf
	Dir   string  // the private cluster's cache directory; "": build/pg (db.ClusterOptions.CacheDir)
	Log   io.Writer
}

// Check reports bad values, naming the setting (db_scale, db_pool, keys).
func (o DBOptions) Check() error {
	if err := setting.Check("db_scale", o.Scale); err != nil {
		return err
	}
	if err := setting.Check("db_pool", float64(o.Pool)); err != nil {
		return err
	}
	if _, err := db.ParseKeyDist(o.Keys); err != nil {
		return setting.Errorf("{keys}: %v", err)
	}
	return nil
}

// keySeed draws the ids: the same sequence for every run of every target.
const keySeed = 2

// Database is the database of a session's database scenarios: the private cluster (nil with an
// external URL), the seeded template and trial database, the key sequences. It is the session's
// backend (each run of a database scenario starts on a fresh clone) and its probe (PostgreSQL's
// and the load generator's resources).
type Database struct {
	o      DBOptions
	cl     *db.Cluster
	st     *db.Store
	keys   map[string]*db.Keys // by scenario.KeyUsers / KeyOrders
	info   session.DBInfo
	events Events
}

// OpenDatabase starts the private cluster (unless o.URL), seeds or reuses the template and
// prepares the key sequences; clientCPUs are the load generator's (PostgreSQL sharing them is
// noted). It stops what it started when it fails; Close stops it otherwise.
func OpenDatabase(ctx context.Context, o DBOptions, clientCPUs string, events Events) (_ *Database, err error) {
	if o.Pool == 0 {
		o.Pool = db.DefaultPoolSize
	}
	dist, _ := db.ParseKeyDist(o.Keys)
	d := &Database{o: o, events: events, info: session.DBInfo{Scale: o.Scale, Keys: string(dist), Pool: o.Pool, External: o.URL != ""}}
	defer func() {
		if err != nil {
			d.Close() // what was started before the failure
		}
	}()
	dbo := db.Options{}
	if o.URL == "" {
		if err = d.startCluster(ctx, clientCPUs); err != nil {
			return nil, err
		}
		dbo.URL = d.cl.URL("postgres")
	} else {
		d.info.Notes = append(d.info.Notes, "external database (the db_url setting): its resources are not sampled")
		if dbo, err = db.UserURL(o.URL); err != nil {
			return nil, err
		}
	}
	dbo.Scale, dbo.Progress = o.Scale, o.Log
	events.Notef("database: scale %g (seeding the template if it is missing)", o.Scale)
	if d.st, err = db.Open(ctx, dbo); err != nil {
		return nil, err
	}
	if _, err = d.st.Reset(ctx); err != nil { // the trial database preflight verifies on
		return nil, err
	}
	d.info.SeedS = round.To(d.st.SeedTime.Seconds(), 2)
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

// startCluster starts the private PostgreSQL and notes where it runs.
func (d *Database) startCluster(ctx context.Context, clientCPUs string) error {
	d.events.Notef("starting PostgreSQL (private cluster)")
	cl, err := db.StartCluster(ctx, db.ClusterOptions{CacheDir: d.o.Dir, Log: d.o.Log})
	if err != nil {
		return err
	}
	d.cl, d.info.Version = cl, cl.Version
	d.info.PGCPUs = affinity(cl.Pid)
	d.info.SharesClient = d.info.PGCPUs != "" && machine.Overlap(d.info.PGCPUs, clientCPUs)
	if d.info.SharesClient {
		note := fmt.Sprintf("PostgreSQL runs on CPUs %q and shares the load generator's (%q): their CPU figures compete, the bottleneck names the client CPUs when both together fill them, and throughput varies widely from run to run (docs/statistics.md, \"db\": on a 2-vCPU VM a shape's throughput check needed 20 to 300 pairs to decide an A/A race)", d.info.PGCPUs, clientCPUs)
		d.info.Notes = append(d.info.Notes, note)
		d.events.Warnf("%s", note)
	}
	return nil
}

// Close closes the store and stops the private cluster (waiting for it to be gone); nil-safe
// and idempotent.
func (d *Database) Close() error {
	if d == nil {
		return nil
	}
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

// Env is what a target needs to serve from the trial database.
func (d *Database) Env() []string {
	return []string{db.EnvURL + "=" + d.st.URL(), db.EnvPool + "=" + strconv.Itoa(d.o.Pool)}
}

// check is what targets.VerifyDB checks against.
func (d *Database) check() targets.DBCheck {
	return targets.DBCheck{URL: d.st.URL(), Sizes: d.st.Dataset.Sizes}
}

// reset clones the trial database afresh (nothing may hold a connection to it).
func (d *Database) reset(ctx context.Context) error {
	_, err := d.st.Reset(ctx)
	return err
}

// Info is the summary's Database: the data set and where it ran.
func (d *Database) Info() session.DBInfo { return d.info }

// prepare clones the trial database afresh before a run of a database scenario (its server is
// not started yet, so nothing holds a connection to it).
func (d *Database) prepare(ctx context.Context, spec Spec) (time.Duration, error) {
	if spec.Scenario.Database == "" {
		return 0, nil
	}
	d.events.Emit(Status{Label: spec.Label, Phase: "resetting the database"})
	took, err := d.st.Reset(ctx)
	if err != nil {
		return 0, fmt.Errorf("resetting the database before %s: %w", spec.Label, err)
	}
	return took, nil
}

// verify checks the database scenarios against the database, the others with Verify.
func (d *Database) verify(ctx context.Context, target, addr string, scs []scenario.Scenario) error {
	var fixed, dbs []scenario.Scenario
	for _, sc := range scs {
		if sc.Database != "" {
			dbs = append(dbs, sc)
		} else {
			fixed = append(fixed, sc)
		}
	}
	var errs []error
	if len(fixed) > 0 {
		errs = append(errs, targets.Verify(ctx, target, addr, fixed))
	}
	if len(dbs) > 0 {
		errs = append(errs, targets.VerifyDB(ctx, target, addr, dbs, d.check()))
	}
	return errors.Join(errs...)
}

// verified resets the database after a target's verification wrote to it (create-order), so
// the next target is verified on the same data.
func (d *Database) verified(ctx context.Context, scs []scenario.Scenario) error {
	for _, sc := range scs {
		if sc.Database != "" {
			if err := d.reset(ctx); err != nil {
				return fmt.Errorf("resetting the database after verification: %w", err)
			}
			return nil
		}
	}
	return nil
}

// Requests renders a database scenario's requests for addr with an id from the sequence of its
// table.
func (d *Database) Requests(sc scenario.Scenario, addr string) load.BuildFunc {
	if sc.Database == "" {
		return nil
	}
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
