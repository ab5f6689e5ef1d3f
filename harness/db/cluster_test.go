//go:build long

// Long test tier (make test-all, -tags long): clusters started and stopped.

package db

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/bindrace/bindrace/harness/internal/procfs"
)

// snapshot records the cluster's processes with their start times, so a pid reused later by
// an unrelated process does not count as a survivor.
func snapshot(t *testing.T, c *Cluster) []procfs.Stat {
	t.Helper()
	tree, err := procfs.Tree(c.Pid)
	if err != nil {
		t.Fatal(err)
	}
	// postmaster, checkpointer, background writer, walwriter, autovacuum launcher, logical
	// replication launcher: at least a handful.
	if len(tree) < 4 {
		t.Fatalf("cluster has %d processes, want the postmaster and its background workers", len(tree))
	}
	return tree
}

func assertGone(t *testing.T, what string, procs []procfs.Stat) {
	t.Helper()
	for _, p := range procs {
		if procfs.Alive(p) {
			t.Errorf("%s: pid %d (child of %d) still runs", what, p.Pid, p.PPid)
		}
	}
}

func TestClusterStartStopLeavesNoProcess(t *testing.T) {
	cache := testCacheDir(t, "own")
	c, err := StartCluster(context.Background(), ClusterOptions{CacheDir: cache})
	if err != nil {
		t.Fatalf("this test needs PostgreSQL: %v", err)
	}
	procs := snapshot(t, c)
	if procs[0].Pid != c.Pid {
		t.Fatalf("process tree starts at %d, want the postmaster %d", procs[0].Pid, c.Pid)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		c.Stop()
		t.Fatal(err)
	}
	var listen string
	if err := conn.QueryRow(ctx, "SHOW listen_addresses").Scan(&listen); err != nil {
		t.Error(err)
	}
	if listen != "127.0.0.1" {
		t.Errorf("listen_addresses = %q, want 127.0.0.1 only", listen)
	}
	// A backend for this connection is one of the children Stop must end.
	procs = snapshot(t, c)
	if _, err := os.Stat(c.SocketDir); err != nil {
		t.Errorf("socket directory: %v", err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	conn.Close(ctx)
	select {
	case <-c.Exited():
	default:
		t.Error("Exited not closed after Stop")
	}
	assertGone(t, "after Stop", procs)
	if _, err := os.Stat(c.SocketDir); !os.IsNotExist(err) {
		t.Errorf("socket directory %s still there after Stop (%v)", c.SocketDir, err)
	}
	if err := c.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}

	// Cancelling the context (Ctrl-C in the CLI) stops it the same way.
	cctx, cancel := context.WithCancel(context.Background())
	c2, err := StartCluster(cctx, ClusterOptions{CacheDir: cache})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if c2.DataDir != c.DataDir {
		t.Errorf("second start used %s, want the cached %s", c2.DataDir, c.DataDir)
	}
	procs = snapshot(t, c2)
	cancel()
	select {
	case <-c2.Exited():
	case <-time.After(40 * time.Second):
		t.Fatal("postmaster still runs 40 s after cancellation")
	}
	if err := c2.Stop(); err != nil { // waits for the cancellation's Stop to finish
		t.Errorf("Stop after cancellation: %v", err)
	}
	assertGone(t, "after cancellation", procs)
}

// A second postmaster on a data directory in use fails to start; the error carries its log
// and no process of it stays behind.
func TestClusterStartFailureCarriesLog(t *testing.T) {
	c := testCluster(t)
	before := snapshot(t, c)
	_, err := StartCluster(context.Background(), ClusterOptions{CacheDir: testCacheDir(t, "shared"), StartTimeout: 20 * time.Second})
	if err == nil {
		t.Fatal("second cluster on the same data directory started")
	}
	if !strings.Contains(err.Error(), "postmaster.pid") || !strings.Contains(err.Error(), "last output") {
		t.Errorf("error does not carry the server's log: %v", err)
	}
	if !strings.Contains(err.Error(), "scripts/setup.sh") {
		t.Errorf("error does not say what to do: %v", err)
	}
	// The running cluster is unharmed.
	after := snapshot(t, c)
	if after[0].Pid != before[0].Pid || after[0].StartTime != before[0].StartTime {
		t.Errorf("postmaster changed: %+v then %+v", before[0], after[0])
	}
}

func TestClusterUsage(t *testing.T) {
	c := testCluster(t)
	ctx := context.Background()
	conn := connect(t, c.URL("postgres"))
	u1, err := c.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if u1.Processes < 5 || u1.RSSBytes <= 0 || u1.PSSBytes <= 0 || u1.PSSBytes > u1.RSSBytes {
		t.Fatalf("usage %+v: want >= 5 processes (with this connection's backend), RSS > 0, 0 < PSS <= RSS", u1)
	}
	pids, err := c.Processes()
	if err != nil || len(pids) < 5 || pids[0] != c.Pid {
		t.Fatalf("Processes() = %v, %v", pids, err)
	}
	// Some CPU work in a backend shows up in the cluster's total.
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM generate_series(1, 3000000) g WHERE g % 7 = 0").Scan(&n); err != nil {
		t.Fatal(err)
	}
	u2, err := c.Usage()
	if err != nil {
		t.Fatal(err)
	}
	if d := u2.CPUSeconds - u1.CPUSeconds; d < 0.05 {
		t.Errorf("CPU grew by %.2f s over a query that takes about 0.3 s of CPU", d)
	}
}

// When another process takes the picked port before postgres binds it, a fresh port is tried.
func TestClusterRetriesATakenPort(t *testing.T) {
	_, taken := loopback.Listen(t)
	picks := 0
	pickPort = func() (int, error) {
		picks++
		if picks == 1 {
			return taken, nil
		}
		return freePort()
	}
	defer func() { pickPort = freePort }()
	c, err := StartCluster(context.Background(), ClusterOptions{CacheDir: testCacheDir(t, "own")})
	if err != nil {
		t.Fatalf("this test needs PostgreSQL: %v", err)
	}
	defer func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	}()
	if picks != 2 || c.Port == taken {
		t.Errorf("port %d after %d picks; want a second pick, not the taken %d", c.Port, picks, taken)
	}
}
