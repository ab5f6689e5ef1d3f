//go:build long

// Long test tier (make test-all, -tags long): races on PostgreSQL, each starting a cluster.

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/session"
)

// dbDir is the e2e tests' private PostgreSQL cache (never the harness's build/pg).
func dbDir() string { return filepath.Join(root, "build", "pg-test", "e2e") }

// postgresLeft lists live processes running from dir's cluster (their cmdline names it).
func postgresLeft(dir string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), dir) {
			st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if i := strings.LastIndexByte(string(st), ')'); i > 0 && len(st) > i+2 && st[i+2] == 'Z' {
				continue
			}
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// externalCluster starts a PostgreSQL of the test's own under build/pg-test/name, for the
// --db-url tests; it stops when the test ends.
func externalCluster(t *testing.T, name string) *db.Cluster {
	t.Helper()
	cl, err := db.StartCluster(context.Background(), db.ClusterOptions{CacheDir: filepath.Join(root, "build", "pg-test", name)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Stop() })
	return cl
}

// pgConnect connects to url (what names it in a failure); the connection closes when the test
// ends, if the test has not closed it.
func pgConnect(t *testing.T, url, what string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatalf("connect to %s: %v", what, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// TestRaceDB races binding against fasthttp on get-user and create-order at scale 0.002, on
// the db profile (500 warm-up requests that must succeed) shortened: the harness starts PostgreSQL, verifies both targets against the database, resets it before
// every run and records reset time and the three parties' resources; nothing is left running.
func TestRaceDB(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	r := cli(t, 50*time.Second, "race", "--a", "binding", "--b", "fasthttp", "--profile", "db", "--scenario", "get-user,create-order",
		"--pairs", "2", "--duration", "1100ms", "--warmup", "200ms", "--cooldown", "0", "--busy-sample", "0",
		"--connections", "10", "--pipelining", "1", "--db-scale", "0.002", "--db-dir", dbDir(), "--out", out)
	if r.code != 3 { // 2 pairs: INCONCLUSIVE
		t.Fatalf("exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "verifying binding (get-user, create-order)") || !strings.Contains(r.stderr, "profile db") {
		t.Errorf("no preflight verification in the progress:\n%s", r.stderr)
	}
	for _, sc := range []string{"get-user", "create-order"} {
		var s session.Summary
		b, err := os.ReadFile(filepath.Join(out, sc, session.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		if d := s.Database; d == nil || d.Scale != 0.002 || d.Users != 200 || d.Orders != 2000 || d.External || d.Pool != 10 {
			t.Errorf("%s: database %+v", sc, d)
		}
		if len(s.Pairs) != 2 {
			t.Fatalf("%s: %d pairs", sc, len(s.Pairs))
		}
		for _, p := range s.Pairs {
			for _, run := range []session.Run{p.A, p.B} {
				d := run.DB
				if run.Error != "" || run.Errors != 0 || run.RPS <= 0 || d == nil {
					t.Fatalf("%s %s: error %q, %d errors, rps %v, db %+v", sc, run.Target, run.Error, run.Errors, run.RPS, d)
				}
				if d.ResetMs <= 0 || d.PGCPUPct <= 0 || d.PGProcesses < 2 || d.PGPSSMiB <= 0 || d.ClientRSSMiB <= 0 || d.Bottleneck == "" {
					t.Errorf("%s %s: db figures %+v", sc, run.Target, d)
				}
				if ps := d.PerSecond; len(ps.ServerCPUPct) < 1 || len(ps.PGCPUPct) != len(ps.ServerCPUPct) || len(ps.ClientRSSMiB) != len(ps.ServerCPUPct) {
					t.Errorf("%s %s: once-a-second samples %+v, want one a second of the 1.1 s window for each party", sc, run.Target, ps)
				}
			}
		}
		md, err := os.ReadFile(filepath.Join(out, sc, "summary.md"))
		if err != nil || !strings.Contains(string(md), "PostgreSQL") || !strings.Contains(string(md), "bottleneck") {
			t.Errorf("%s: summary.md lacks the database section (%v)", sc, err)
		}
	}
	// The db profile pools its races' throughput: two pooled pairs bound nothing yet.
	ix, err := session.LoadIndex(out)
	if err != nil || ix.Pooled == nil || ix.Pooled.Verdict != session.Inconclusive || !strings.Contains(ix.Pooled.Reason, "too few pooled pairs") ||
		!strings.Contains(r.stdout, "the pooled throughput check INCONCLUSIVE") {
		t.Errorf("pooled check %+v (%v)\nstdout: %s", ix.Pooled, err, r.stdout)
	}
	if left := postgresLeft(dbDir()); len(left) > 0 {
		t.Errorf("PostgreSQL left running:\n%s", strings.Join(left, "\n"))
	}
	noLeftovers(t)
}

// A read-only database scenario keeps interleaved windows: both servers of a pair live on one
// copy of the database, reset once before the pair (the first run of the pair records it).
func TestRaceDBInterleaved(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	r := cli(t, 50*time.Second, "race", "--a", "binding", "--b", "fasthttp", "--scenario", "get-user", "--windows", "2",
		"--pairs", "2", "--duration", "500ms", "--warmup", "200ms", "--cooldown", "0", "--busy-sample", "0", "--steal-limit", "-1",
		"--connections", "10", "--pipelining", "1", "--db-scale", "0.002", "--db-dir", dbDir(), "--out", out)
	if r.code != 3 { // 2 pairs: INCONCLUSIVE
		t.Fatalf("exit %d, want 3\nstderr: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "windows per run became 1") {
		t.Errorf("get-user lost its interleaved windows:\n%s", r.stderr)
	}
	var s session.Summary
	b, err := os.ReadFile(filepath.Join(out, session.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.Shape.Windows != 2 || len(s.Pairs) != 2 {
		t.Fatalf("shape %+v, %d pairs; want 2 windows, 2 pairs", s.Shape, len(s.Pairs))
	}
	for i, p := range s.Pairs {
		first, second := p.A, p.B
		if p.Order == "BA" {
			first, second = p.B, p.A
		}
		for _, run := range []session.Run{first, second} {
			if run.Error != "" || run.Errors != 0 || run.RPS <= 0 || run.DB == nil || len(run.PerWindow) != 2 {
				t.Fatalf("pair %d %s: error %q, %d errors, rps %v, db %+v, %d windows", i, run.Target, run.Error, run.Errors, run.RPS, run.DB, len(run.PerWindow))
			}
		}
		if first.DB.ResetMs <= 0 || second.DB.ResetMs != 0 {
			t.Errorf("pair %d: reset %v ms before %s, %v ms before %s; want one reset, before the pair's first run", i, first.DB.ResetMs, first.Target, second.DB.ResetMs, second.Target)
		}
	}
	if left := postgresLeft(dbDir()); len(left) > 0 {
		t.Errorf("PostgreSQL left running:\n%s", strings.Join(left, "\n"))
	}
}

func TestRaceDBBadInput(t *testing.T) {
	base := []string{"race", "--a", "binding", "--b", "fasthttp", "--scenario", "get-user", "--windows", "1", "--db-dir", dbDir()}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"zero scale", []string{"--db-scale", "0"}, "--db-scale 0 is out of range"},
		{"negative scale", []string{"--db-scale", "-1"}, "--db-scale -1 is out of range"},
		{"unknown keys", []string{"--keys", "gauss"}, `--keys: key distribution "gauss"`},
		{"static target", []string{"--a", "binding-static"}, "target binding-static does not serve get-user"},
		{"interleaved windows, writing", []string{"--scenario", "create-order", "--windows", "3"}, "[create-order] write to the database, which is reset before every run of theirs, so one server runs at a time"},
	}
	for _, c := range cases {
		r := cli(t, 20*time.Second, append(append([]string(nil), base...), c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", c.name, r.code, r.stderr, c.want)
		}
	}
	if left := postgresLeft(dbDir()); len(left) > 0 {
		t.Errorf("PostgreSQL left running:\n%s", strings.Join(left, "\n"))
	}
}

// `bindrace verify` checks the database scenarios against a database it starts: a target that
// serves them passes; binding-static, whose definition does not claim them, is refused before
// PostgreSQL starts.
func TestVerifyDB(t *testing.T) {
	r := cli(t, 30*time.Second, "verify", "--target", "fasthttp,binding-static", "--scenario", "get-user,create-order",
		"--db-scale", "0.002", "--db-dir", dbDir())
	if r.code != 2 || !strings.Contains(r.stderr, "target binding-static does not serve get-user, create-order") || strings.Contains(r.stderr, "starting PostgreSQL") {
		t.Errorf("binding-static named: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = cli(t, 60*time.Second, "verify", "--target", "fasthttp", "--scenario", "get-user,create-order", "--db-scale", "0.002", "--db-dir", dbDir())
	if r.code != 0 || !strings.Contains(r.stdout, "ok    fasthttp/get-user") || !strings.Contains(r.stdout, "ok    fasthttp/create-order") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if left := postgresLeft(dbDir()); len(left) > 0 {
		t.Errorf("PostgreSQL left running:\n%s", strings.Join(left, "\n"))
	}
	noLeftovers(t)
}

// `bindrace counters` counts a database scenario with PostgreSQL beside the server: the paced
// system calls of get-user carry the query the binding writes to PostgreSQL and the answer it
// reads back on every request, beside the client's recv and send. binding-static is refused
// before PostgreSQL starts.
func TestCountersDB(t *testing.T) {
	r := cli(t, 60*time.Second, "counters", "--mode", "syscalls", "--target", "binding", "--scenario", "get-user",
		"--pipelining", "1", "--n", "300", "--db-scale", "0.002", "--db-dir", dbDir(), "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	var rep struct {
		Responses int64 `json:"responses"`
		Syscalls  struct {
			BySyscall []struct {
				Name        string  `json:"name"`
				PerResponse float64 `json:"per_response"`
			} `json:"by_syscall"`
		} `json:"syscalls"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	calls := map[string]float64{}
	for _, row := range rep.Syscalls.BySyscall {
		calls[row.Name] = row.PerResponse
	}
	// The core receives and sends the client's bytes (recvfrom, sendmsg); Go's net package
	// writes the query and reads the answer on the pool's connection (write, read).
	if rep.Responses != 300 || calls["recvfrom"] < 1 || calls["sendmsg"] < 1 || calls["write"] < 1 || calls["read"] < 1 {
		t.Errorf("responses %d, per response %v: want 300, and recvfrom, sendmsg, write and read at least once each", rep.Responses, calls)
	}

	r = cli(t, 10*time.Second, "counters", "--mode", "syscalls", "--target", "binding-static", "--scenario", "get-user", "--db-dir", dbDir())
	if r.code != 2 || !strings.Contains(r.stderr, "does not serve get-user") || strings.Contains(r.stderr, "starting PostgreSQL") {
		t.Errorf("binding-static: exit %d, stderr: %s; want 2, refused before PostgreSQL starts", r.code, r.stderr)
	}
	if left := postgresLeft(dbDir()); len(left) > 0 {
		t.Errorf("PostgreSQL left running:\n%s", strings.Join(left, "\n"))
	}
	noLeftovers(t)
}

// With --db-url, a database of the harness's template name that lacks its ownership marker is
// refused with exit 2 and left exactly as it was.
func TestRaceDBExternalNotOwned(t *testing.T) {
	ctx := context.Background()
	cl := externalCluster(t, "e2e-ext")
	admin := pgConnect(t, cl.URL("postgres"), "the cluster")
	admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db.DefaultTemplate)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+db.DefaultTemplate); err != nil {
		t.Fatal(err)
	}
	foreign := pgConnect(t, cl.URL(db.DefaultTemplate), "the foreign database")
	if _, err := foreign.Exec(ctx, "CREATE TABLE precious (v text); INSERT INTO precious VALUES ('mine')"); err != nil {
		t.Fatal(err)
	}
	foreign.Close(ctx)

	r := cli(t, 30*time.Second, "race", "--a", "binding", "--b", "fasthttp", "--scenario", "get-user", "--windows", "1",
		"--db-url", cl.URL("postgres"), "--db-scale", "0.002", "--out", filepath.Join(t.TempDir(), "s"))
	if r.code != 2 || !strings.Contains(r.stderr, "carries no bindrace ownership marker") {
		t.Errorf("exit %d, stderr %q; want 2 and the refusal", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, cl.URL("postgres")) {
		t.Errorf("the password reached stderr: %s", r.stderr)
	}
	foreign = pgConnect(t, cl.URL(db.DefaultTemplate), "the foreign database after the race")
	var v string
	if err := foreign.QueryRow(ctx, "SELECT v FROM precious").Scan(&v); err != nil || v != "mine" {
		t.Errorf("the foreign database changed: %q, %v", v, err)
	}
	foreign.Close(ctx)

	// A URL naming a database that holds something else: exit 2, the database named and left.
	r = cli(t, 30*time.Second, "race", "--a", "binding", "--b", "fasthttp", "--scenario", "get-user", "--windows", "1",
		"--db-url", cl.URL(db.DefaultTemplate), "--db-scale", "0.002", "--out", filepath.Join(t.TempDir(), "s"))
	if r.code != 2 || !strings.Contains(r.stderr, `database "`+db.DefaultTemplate+`" exists, is not empty`) {
		t.Errorf("--db-url naming a foreign database: exit %d, stderr %q; want 2 and the refusal", r.code, r.stderr)
	}
	noLeftovers(t)
}

// Ctrl-C during a database race: exit 2, the measured run kept, and neither a server nor
// PostgreSQL left running.
func TestRaceDBInterrupt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session")
	cmd := exec.Command(bin, "race", "--a", "fasthttp", "--b", "binding", "--scenario", "get-user", "--windows", "1",
		"--pairs", "4", "--duration", "2s", "--warmup", "100ms", "--cooldown", "0", "--busy-sample", "0",
		"--connections", "10", "--pipelining", "1", "--db-scale", "0.002", "--db-dir", dbDir(), "--out", dir)
	errb := interruptSecondRun(t, cmd, 40*time.Second)
	s, err := session.LoadSummary(dir)
	if err != nil {
		t.Fatalf("no partial results: %v\n%s", err, errb.String())
	}
	if len(s.Pairs) == 0 || s.Pairs[0].A.RPS <= 0 || s.Pairs[0].A.DB == nil || s.Pairs[0].A.DB.ResetMs <= 0 {
		t.Errorf("the measured run was not kept with its database figures: %+v", s.Pairs)
	}
	if left := postgresLeft(dbDir()); len(left) > 0 {
		t.Errorf("PostgreSQL left running:\n%s", strings.Join(left, "\n"))
	}
	noLeftovers(t)
}

// With --db-url the harness uses someone else's PostgreSQL: it creates its marked template
// there, races on clones of it, records the database's resources as external (not sampled),
// and leaves the server running, as it found it.
func TestRaceDBExternal(t *testing.T) {
	cl := externalCluster(t, "e2e-ext-owned")
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
	s, err := session.LoadSummary(out)
	if err != nil {
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
	admin := pgConnect(t, cl.URL(db.DefaultTemplate), "the external server's bindrace template")
	var marker string
	if err := admin.QueryRow(context.Background(), "SELECT marker FROM bindrace_owner").Scan(&marker); err != nil || marker != db.OwnerMarker {
		t.Errorf("template marker %q, %v", marker, err)
	}
	noLeftovers(t)
}
