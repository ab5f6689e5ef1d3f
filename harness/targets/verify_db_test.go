//go:build long

// Long test tier (make test-all, -tags long): targets verified against a PostgreSQL cluster.

package targets

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/scenario"
)

// testDB starts a private cluster (build/pg-test/targets) with the data set at scale 0.002 and
// a freshly reset trial database; both go when the test ends. PostgreSQL is required
// (scripts/setup.sh installs it).
func testDB(t *testing.T) *db.Store {
	t.Helper()
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cl, err := db.StartCluster(ctx, db.ClusterOptions{CacheDir: filepath.Join(root, "build", "pg-test", "targets")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := cl.Stop(); err != nil {
			t.Error(err)
		}
	})
	st, err := db.Open(ctx, db.Options{URL: cl.URL("postgres"), Scale: 0.002})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	return st
}

func dbEnv(st *db.Store) []string {
	return []string{db.EnvURL + "=" + st.URL(), db.EnvPool + "=4"}
}

// Every Go target serves the four database scenarios exactly as the database answers them;
// binding-static has no database routes and a target started without a database answers 503,
// and verify says which.
func TestVerifyDBTargets(t *testing.T) {
	st := testDB(t)
	chk := DBCheck{URL: st.URL(), Sizes: st.Dataset.Sizes}
	ctx := context.Background()
	for _, name := range []string{"binding", "fasthttp", "nethttp", "uws"} {
		tg, err := Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		s := startT(t, tg, StartOptions{Env: dbEnv(st)})
		if err := VerifyDB(ctx, name, s.Addr(), scenario.DB(), chk); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		s.Stop()
		if _, err := st.Reset(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"binding-static", dbEnv(st), "does not serve the database scenarios"},
		{"fasthttp", nil, "answered 503"},
	} {
		tg, err := Resolve(c.name)
		if err != nil {
			t.Fatal(err)
		}
		s := startT(t, tg, StartOptions{Env: c.env})
		err = VerifyDB(ctx, c.name, s.Addr(), scenario.DB(), chk)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: VerifyDB = %v, want an error saying %q", c.name, err, c.want)
		}
		// Each scenario's mismatch names the route it asked for: what the target must add.
		for _, sc := range scenario.DB() {
			req := sc.Method + " " + sc.WithID(1).Path // id 1 is the first asked for
			named := false
			for _, e := range Mismatches(err) {
				var m *Mismatch
				named = named || errors.As(e, &m) && m.Scenario == sc.Name && strings.Contains(m.Got, req)
			}
			if !named {
				t.Errorf("%s: VerifyDB = %v, want a mismatch of %s naming %q", c.name, err, sc.Name, req)
			}
		}
		s.Stop()
	}
}

// A dropped database connection is a 500 for the requests it hits, not a dead server: after
// PostgreSQL ends every connection of the pool, the target answers again from fresh ones.
func TestDBConnectionsDropped(t *testing.T) {
	st := testDB(t)
	ctx := context.Background()
	for _, name := range []string{"binding", "fasthttp"} {
		tg, err := Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		s := startT(t, tg, StartOptions{Env: dbEnv(st)})
		url := "http://" + s.Addr() + "/db/users/1"
		if code := getStatus(t, url); code != 200 {
			t.Fatalf("%s: %d before the drop", name, code)
		}
		conn, err := pgx.Connect(ctx, st.URL())
		if err != nil {
			t.Fatal(err)
		}
		var ended int
		err = conn.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").Scan(&ended)
		conn.Close(ctx)
		if err != nil || ended < 1 {
			t.Fatalf("%s: ended %d connections: %v", name, ended, err)
		}
		codes := map[int]int{}
		for range 50 {
			codes[getStatus(t, url)]++
		}
		if codes[200] == 0 || len(codes) > 2 || (len(codes) == 2 && codes[500] == 0) {
			t.Errorf("%s after the drop: statuses %v, want 500s for the dropped connections and 200s after", name, codes)
		}
		select {
		case <-s.Exited():
			t.Errorf("%s exited", name)
		default:
		}
		s.Stop()
	}
}

func getStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
