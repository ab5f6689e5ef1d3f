package race

import (
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// The bottleneck is the party with the largest share of its CPU allotment at 90% or more; on
// shared client CPUs PostgreSQL and the load generator count together; below 90% it is none.
func TestBottleneck(t *testing.T) {
	shared := &engine{plan: Plan{CPUsServer: "1", CPUsClient: "0"},
		db: &dbState{info: session.DBInfo{PGCPUs: "0", SharesClient: true}}}
	apart := &engine{plan: Plan{CPUsServer: "1", CPUsClient: "0"},
		db: &dbState{info: session.DBInfo{PGCPUs: "2-3"}}}
	cases := []struct {
		e                  *engine
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
		if got := c.e.bottleneck(run, d); got != c.want {
			t.Errorf("server %v%%, postgres %v%%, client %v%% (shared %v, external %v): %q, want %q",
				c.server, c.pg, c.client, c.e.db.info.SharesClient, c.external, got, c.want)
		}
	}
}

func TestDBOptionsCheck(t *testing.T) {
	good := DBOptions{Scale: 0.01, Pool: 10, Keys: "zipf"}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []DBOptions{{Scale: 0}, {Scale: -1}, {Scale: 101}, {Scale: 1, Pool: -1}, {Scale: 1, Keys: "gauss"}} {
		if bad.Check() == nil {
			t.Errorf("%+v passed", bad)
		}
	}
}
