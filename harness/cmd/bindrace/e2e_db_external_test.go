package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/session"
)

// With --db-url the harness uses someone else's PostgreSQL: it creates its marked template
// there, races on clones of it, records the database's resources as external (not sampled),
// and leaves the server running, as it found it.
func TestRaceDBExternal(t *testing.T) {
	ctx := context.Background()
	cl, err := db.StartCluster(ctx, db.ClusterOptions{CacheDir: filepath.Join(root, "build", "pg-test", "e2e-ext-owned")})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Stop()
	out := filepath.Join(t.TempDir(), "s")
	r := cli(t, 60*time.Second, "race", "--a", "binding", "--b", "fasthttp", "--scenario", "get-user", "--windows", "1",
		"--pairs", "2", "--duration", "1100ms", "--warmup", "200ms", "--cooldown", "0", "--busy-sample", "0",
		"--connections", "10", "--pipelining", "1", "--db-url", cl.URL("postgres"), "--db-scale", "0.002", "--out", out)
	if r.code != 3 { // 2 pairs: INCONCLUSIVE
		t.Fatalf("exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr+r.stdout, cl.URL("postgres")) {
		t.Errorf("the password reached the output")
	}
	var s session.Summary
	b, err := os.ReadFile(filepath.Join(out, session.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if d := s.Database; d == nil || !d.External || d.Users != 200 {
		t.Fatalf("database %+v, want external with 200 users", d)
	}
	for _, p := range s.Pairs {
		for _, run := range []session.Run{p.A, p.B} {
			d := run.DB
			if run.Error != "" || run.Errors != 0 || run.RPS <= 0 || d == nil {
				t.Fatalf("%s: error %q, %d errors, rps %v, db %+v", run.Target, run.Error, run.Errors, run.RPS, d)
			}
			if !d.External || d.PGCPUPct != 0 || d.PGProcesses != 0 || len(d.PerSecond.PGCPUPct) != 0 || d.ResetMs <= 0 {
				t.Errorf("%s: db figures %+v, want external (PostgreSQL not sampled) and a reset", run.Target, d)
			}
		}
	}
	admin, err := pgx.Connect(ctx, cl.URL(db.DefaultTemplate))
	if err != nil {
		t.Fatalf("the external server or the harness's template is gone: %v", err)
	}
	defer admin.Close(ctx)
	var marker string
	if err := admin.QueryRow(ctx, "SELECT marker FROM bindrace_owner").Scan(&marker); err != nil || marker != db.OwnerMarker {
		t.Errorf("template marker %q, %v", marker, err)
	}
	noLeftovers(t)
}
