package measure

import (
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// The bottleneck is the party with the largest share of its CPU allotment at 90% or more; on
// shared client CPUs PostgreSQL and the load generator count together; below 90% it is none.
func TestBottleneck(t *testing.T) {
	pl := Plan{Method: profile.Method{CPUsServer: "1", CPUsClient: "0"}}
	shared := dbProbe{d: &Database{info: session.DBInfo{PGCPUs: "0", SharesClient: true}}, plan: pl}
	apart := dbProbe{d: &Database{info: session.DBInfo{PGCPUs: "2-3"}}, plan: pl}
	cases := []struct {
		p                  dbProbe
		server, pg, client float64
		external           bool
		want               string
	}{
		{shared, 95, 30, 20, false, "server"},
		{shared, 60, 70, 25, false, "client CPUs (load generator + postgres)"},
		{shared, 60, 50, 30, false, "none"},
		{apart, 60, 20, 92, false, "load generator"},
		{apart, 60, 190, 30, false, "postgres"},
		{apart, 60, 150, 30, false, "none"},
		{apart, 89, 0, 10, true, "none"},
		{apart, 90, 0, 10, true, "server"},
	}
	for _, c := range cases {
		run := &session.Run{ServerCPUPct: c.server}
		d := &session.DBRun{PGCPUPct: c.pg, ClientCPUPct: c.client, External: c.external}
		if got := c.p.bottleneck(run, d, pl); got != c.want {
			t.Errorf("server %v%%, postgres %v%%, client %v%% (shared %v, external %v): %q, want %q",
				c.server, c.pg, c.client, c.p.d.info.SharesClient, c.external, got, c.want)
		}
	}
}

func TestDBOptionsCheck(t *testing.T) {
	good := DBOptions{Scale: 0.01, Pool: 10, Keys: "zipf"}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o       DBOptions
		setting string
	}{{DBOptions{Scale: 0}, "db_scale"}, {DBOptions{Scale: -1}, "db_scale"}, {DBOptions{Scale: 101}, "db_scale"},
		{DBOptions{Scale: 1, Pool: -1}, "db_pool"}, {DBOptions{Scale: 1, Keys: "gauss"}, "keys"}} {
		err := c.o.Check()
		se, ok := err.(interface{ Settings() []string })
		if !ok || len(se.Settings()) != 1 || se.Settings()[0] != c.setting {
			t.Errorf("%+v: %v, want an error naming %s", c.o, err, c.setting)
		}
	}
}

// dbRecord stands in for the database probe: it writes a DBRun with the given bottleneck and
// load generator CPU.
type dbRecord struct {
	bottleneck string
	clientCPU  float64
}

func (dbRecord) Open(Server, Spec) Reading { return nil }
func (p dbRecord) Record(rec *session.Run, _ *Run, _ []Window) {
	rec.DB = &session.DBRun{Bottleneck: p.bottleneck, ClientCPUPct: p.clientCPU}
}

// A database-scenario run with its server unsaturated is client-bound only when the load
// generator was the bottleneck; PostgreSQL's pace, the CPUs it shares with the generator, or no
// party at all (the round trip of one connection) leave its throughput as measured. A run
// whose generator was not read falls back to the server's CPU alone, as does any other scenario.
func TestDatabasePacedNotClientBound(t *testing.T) {
	sc, _ := scenario.ByName("ping")
	for _, c := range []struct {
		db   Probe
		want bool
	}{
		{dbRecord{"load generator", 95}, true},
		{dbRecord{"postgres", 20}, false},
		{dbRecord{"client CPUs (load generator + postgres)", 30}, false},
		{dbRecord{"none", 25}, false},
		{dbRecord{"none", 0}, true}, // the generator's CPU unread: nothing says who set the pace
		{usageProbe{}, true},        // no database
	} {
		rec := &recorder{plan: Plan{Method: profile.Method{CPUsServer: "1", CPUsClient: "0"}},
			targets: map[string]*targets.Target{"binding": {Name: "binding"}},
			probes:  func() []Probe { return []Probe{usageProbe{}, c.db} }}
		run := Run{Spec: Spec{Target: "binding", Scenario: sc}, Ran: true, Windows: []Window{window(1000, time.Second, 0.3, 0)}}
		got := rec.record(run)
		if got.ClientBound != c.want {
			t.Errorf("%+v: client-bound %v, want %v", c.db, got.ClientBound, c.want)
		}
	}
}
