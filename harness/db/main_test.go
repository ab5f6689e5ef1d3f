package db

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bindrace/bindrace/harness/internal/machine"
)

// The tests share one cluster (in build/pg-test/shared, apart from the harness's build/pg) and
// one small template; tests that start and stop clusters themselves use build/pg-test/own.
// PostgreSQL is required: a machine without it fails these tests, and the message says that
// scripts/setup.sh installs it (CI runs setup first).

const testScale = 0.002 // 200 users, 2,000 orders, 6,000 items

var shared struct {
	once    sync.Once
	cluster *Cluster
	err     error

	storeOnce sync.Once
	store     *Store
	storeErr  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.store != nil {
		shared.store.Close()
	}
	if shared.cluster != nil {
		if err := shared.cluster.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the shared test cluster:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// testCacheDir is build/pg-test/<name>, or its /var/tmp stand-in when the server's user
// cannot reach the checkout (as for the harness's own default).
func testCacheDir(t testing.TB, name string) string {
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "build", "pg-test", name)
	if who, err := serverUser(""); err == nil && !reachable(dir, who.uid, who.gids) {
		dir = fallbackCacheDir(dir)
	}
	return dir
}

// testCluster is the shared cluster, started on first use.
func testCluster(t testing.TB) *Cluster {
	t.Helper()
	shared.once.Do(func() {
		shared.cluster, shared.err = StartCluster(context.Background(), ClusterOptions{CacheDir: testCacheDir(t, "shared")})
	})
	if shared.err != nil {
		t.Fatalf("this test needs PostgreSQL: %v", shared.err)
	}
	return shared.cluster
}

// connect opens a connection to url for the test, closed when the test ends.
func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// testStore is the shared store at testScale (template bt_template, trial database bt_trial).
func testStore(t testing.TB) *Store {
	t.Helper()
	c := testCluster(t)
	shared.storeOnce.Do(func() {
		shared.store, shared.storeErr = Open(context.Background(), Options{
			URL: c.URL("postgres"), Database: "bt_trial", Template: "bt_template", Scale: testScale,
		})
	})
	if shared.storeErr != nil {
		t.Fatalf("opening the test store: %v", shared.storeErr)
	}
	return shared.store
}

// freshTrial resets the shared store's trial database and opens a pool of 3 on it.
func freshTrial(t testing.TB) (*Store, *Queries) { return freshTrialPool(t, 3) }

// freshTrialPool is freshTrial with a pool of size connections.
func freshTrialPool(t testing.TB, size int) (*Store, *Queries) {
	t.Helper()
	s := testStore(t)
	if _, err := s.Reset(context.Background()); err != nil {
		t.Fatalf("reset: %v", err)
	}
	q, err := NewQueries(context.Background(), s.URL(), PoolOptions{Size: size})
	if err != nil {
		t.Fatalf("pool: %v", err)
	}
	t.Cleanup(q.Close)
	return s, q
}
