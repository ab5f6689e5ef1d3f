//go:build long

// Long test tier (make test-all, -tags long): seeding and resetting databases on a cluster.

package db

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A freshly seeded template holds exactly the generator's rows, is reused by the next Open,
// and is rebuilt when the scale changes.
func TestSeedMatchesGenerator(t *testing.T) {
	c := testCluster(t)
	ctx := context.Background()
	o := Options{URL: c.URL("postgres"), Database: "bt_seed_trial", Template: "bt_seed_template", Scale: testScale}
	// Leftovers of an interrupted run are marked: Destroy clears them.
	s, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Destroy(ctx); err != nil {
		t.Fatal(err)
	}
	s.Close()

	var progress strings.Builder
	o.Progress = &progress
	s, err = Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Destroy(ctx); err != nil {
			t.Error(err)
		}
		s.Close()
	}()
	if !s.Seeded || s.SeedTime <= 0 {
		t.Fatalf("Seeded = %v, SeedTime = %v after dropping the template", s.Seeded, s.SeedTime)
	}
	if !strings.Contains(progress.String(), "seeding bt_seed_template: 200 users, 2000 orders, 6000 items") {
		t.Errorf("progress: %q", progress.String())
	}
	conn, err := pgx.Connect(ctx, s.TemplateURL())
	if err != nil {
		t.Fatal(err)
	}
	d := s.Dataset
	var nu, no, ni int64
	if err := conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM orders), (SELECT count(*) FROM order_items)").Scan(&nu, &no, &ni); err != nil {
		t.Fatal(err)
	}
	if nu != d.Users || no != d.Orders || ni != d.Items {
		t.Fatalf("rows %d/%d/%d, want %+v", nu, no, ni, d.Sizes)
	}
	checkRowsMatchGenerator(t, ctx, conn, d)
	// Indexes and statistics were made after the load.
	var indexes, analysed int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_indexes WHERE schemaname = 'public'),
		(SELECT count(*) FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL AND relname IN ('users', 'orders', 'order_items'))`).Scan(&indexes, &analysed); err != nil {
		t.Fatal(err)
	}
	if indexes != 5 || analysed != 3 {
		t.Errorf("%d indexes, %d tables analysed; want 5 and 3", indexes, analysed)
	}
	conn.Close(ctx)

	// Reused as it is.
	s2, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if s2.Seeded {
		t.Error("a complete template of the same data set was seeded again")
	}
	// Another scale: rebuilt.
	o.Scale = testScale / 2
	s3, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	s3.Close()
	if !s3.Seeded || s3.Dataset.Users != 100 {
		t.Errorf("Seeded = %v, users = %d after a change of scale; want a rebuild with 100 users", s3.Seeded, s3.Dataset.Users)
	}
}

// checkRowsMatchGenerator: every row of the seeded template equals the generator's.
func checkRowsMatchGenerator(t *testing.T, ctx context.Context, conn *pgx.Conn, d Dataset) {
	t.Helper()
	checkTable(t, ctx, conn, "SELECT id, name, email FROM users ORDER BY id", d.User, func(a, b User) bool { return a == b })
	checkTable(t, ctx, conn, "SELECT id, user_id, total_cents, created_at FROM orders ORDER BY id", d.Order, func(a, b Order) bool {
		return a.ID == b.ID && a.UserID == b.UserID && a.TotalCents == b.TotalCents && a.CreatedAt.Equal(b.CreatedAt)
	})
	checkTable(t, ctx, conn, "SELECT id, order_id, sku, qty, price_cents FROM order_items ORDER BY id", d.Item, func(a, b Item) bool { return a == b })
}

// checkTable reads the rows of query, in id order, and checks row i against the generator's
// row(i) with same.
func checkTable[T any](t *testing.T, ctx context.Context, conn *pgx.Conn, query string, row func(int64) T, same func(a, b T) bool) {
	t.Helper()
	rows, _ := conn.Query(ctx, query) // an error shows in CollectRows
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[T])
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range got {
		if want := row(int64(i)); !same(r, want) {
			t.Fatalf("%s: row %d = %+v, generator says %+v", query, i, r, want)
		}
	}
}

// Every reset gives the same content and sequences; a write does not survive one.
func TestResetIsDeterministic(t *testing.T) {
	s, q := freshTrial(t)
	ctx := context.Background()
	sum1, err := s.Checksum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	body, err := q.AppendCreateOrder(ctx, nil, CreateOrder{UserID: 3, Items: []OrderLine{{SKU: "SKU-00001", Qty: 2, PriceCents: 150}}})
	if err != nil {
		t.Fatal(err)
	}
	wantID := s.Dataset.Orders + 1 // the sequence starts after the generated orders
	if want := `{"order_id":` + strconv.FormatInt(wantID, 10) + `}`; string(body) != want {
		t.Fatalf("create-order answered %s, want %s", body, want)
	}
	dirty, err := s.Checksum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if dirty == sum1 {
		t.Fatal("checksum did not change after an insert")
	}
	q.Close() // Reset would terminate its connections anyway

	took, err := s.Reset(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if took <= 0 || took > time.Minute {
		t.Errorf("reset took %v", took)
	}
	sum2, err := s.Checksum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sum2 != sum1 {
		t.Fatalf("checksum after reset %q, want %q", sum2, sum1)
	}
	a, err := ExpectOrderTotal(ctx, connect(t, s.URL()), wantID)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != 404 {
		t.Errorf("order %d survived the reset: %d %s", wantID, a.Status, a.Body)
	}
}

// An existing database without the marker is refused by every operation that would drop or
// reseed it, and stays as it was.
func TestUnmarkedDatabaseIsLeftUntouched(t *testing.T) {
	c := testCluster(t)
	s := testStore(t)
	ctx := context.Background()
	admin := connect(t, c.URL("postgres"))
	// The test owns these two; they are made from scratch each run.
	for _, name := range []string{"bt_foreign", "bt_fake_marker"} {
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
	}
	fill := func(name, sql string) {
		conn, err := pgx.Connect(ctx, dbURL(s.base, name))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	fill("bt_foreign", "CREATE TABLE precious (v int); INSERT INTO precious VALUES (42)")
	fill("bt_fake_marker", "CREATE TABLE bindrace_owner (marker text, seed bigint, scale float8, schema_version int, complete bool);"+
		"INSERT INTO bindrace_owner VALUES ('someone else''s', 1, 1, 1, true); CREATE TABLE precious (v int); INSERT INTO precious VALUES (42)")

	untouched := func(name string) {
		t.Helper()
		conn, err := pgx.Connect(ctx, dbURL(s.base, name))
		if err != nil {
			t.Fatalf("%s is gone: %v", name, err)
		}
		defer conn.Close(ctx)
		var v int
		if err := conn.QueryRow(ctx, "SELECT v FROM precious").Scan(&v); err != nil || v != 42 {
			t.Fatalf("%s changed: %v, %d", name, err, v)
		}
	}
	for _, name := range []string{"bt_foreign", "bt_fake_marker"} {
		// As the trial database: Reset and Destroy refuse.
		trial := &Store{Dataset: s.Dataset, opts: s.opts, base: s.base, admin: s.admin, strategy: s.strategy}
		trial.opts.Database = name
		_, err := trial.Reset(ctx)
		var noe *NotOwnedError
		if !errors.Is(err, ErrNotOwned) || !errors.As(err, &noe) || noe.Database != name {
			t.Fatalf("Reset over %s: %v, want a NotOwnedError", name, err)
		}
		if err := trial.Destroy(ctx); !errors.Is(err, ErrNotOwned) {
			t.Fatalf("Destroy over %s: %v, want ErrNotOwned", name, err)
		}
		untouched(name)
		// As the template: Open refuses to reseed it.
		_, err = Open(ctx, Options{URL: c.URL("postgres"), Database: "bt_unused", Template: name, Scale: testScale})
		if !errors.Is(err, ErrNotOwned) {
			t.Fatalf("Open with template %s: %v, want ErrNotOwned", name, err)
		}
		untouched(name)
	}
	if !strings.Contains((&NotOwnedError{Database: "x", Reason: "y"}).Error(), "leaves it untouched") {
		t.Error("NotOwnedError does not say the database was left alone")
	}
}

// progressFunc is an io.Writer over a function, to act on a seeding step.
type progressFunc func(line string)

func (f progressFunc) Write(p []byte) (int, error) { f(string(p)); return len(p), nil }

// A seeding cancelled half-way (Ctrl-C) drops the template it created: nothing is left for the
// next run to trip over, not even a marked, incomplete database.
func TestCancelledSeedingLeavesNoTemplate(t *testing.T) {
	c := testCluster(t)
	admin := connect(t, c.URL("postgres"))
	if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS bt_cancel_template"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	loaded := false
	_, err := Open(ctx, Options{URL: c.URL("postgres"), Database: "bt_cancel_trial", Template: "bt_cancel_template", Scale: testScale,
		Progress: progressFunc(func(line string) {
			if strings.Contains(line, "loaded in") {
				loaded = true
				cancel() // between the load and the indexes
			}
		})})
	if !loaded || !errors.Is(err, context.Canceled) {
		t.Fatalf("Open = %v (loaded: %v), want a cancellation after the load", err, loaded)
	}
	var exists bool
	if err := admin.QueryRow(context.Background(), "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'bt_cancel_template')").Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists {
		t.Error("the half-seeded template is still there")
	}
}

// The database a --db-url names is used when it is new or empty (and is then the harness's:
// marked once cloned), and refused, untouched, when it holds something else; the refusal comes
// from Open, before any template is seeded for it.
func TestNamedDatabase(t *testing.T) {
	c := testCluster(t)
	ctx := context.Background()
	admin := connect(t, c.URL("postgres"))
	for _, name := range []string{"bt_named", "bt_named_template", "bt_taken", "bt_taken_template"} {
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE bt_named"); err != nil { // empty: the user made it for us
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE bt_taken"); err != nil {
		t.Fatal(err)
	}
	taken := connect(t, strings.Replace(c.URL("postgres"), "/postgres", "/bt_taken", 1))
	if _, err := taken.Exec(ctx, "CREATE TABLE precious (v int); INSERT INTO precious VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	open := func(db string) (*Store, error) {
		o, err := UserURL(strings.Replace(c.URL("postgres"), "/postgres", "/"+db, 1))
		if err != nil {
			t.Fatal(err)
		}
		o.Scale = testScale
		return Open(ctx, o)
	}
	s, err := open("bt_named")
	if err != nil {
		t.Fatalf("an empty named database: %v", err)
	}
	if _, err := s.Reset(ctx); err != nil {
		t.Fatalf("Reset over the empty database: %v", err)
	}
	if !strings.Contains(s.URL(), "/bt_named?") || !strings.Contains(s.TemplateURL(), "/bt_named_template?") {
		t.Errorf("trial %s, template %s", redact(s.URL()), redact(s.TemplateURL()))
	}
	if _, err := s.readMarker(ctx, "bt_named"); err != nil {
		t.Errorf("the cloned trial database carries no marker: %v", err)
	}
	if err := s.Destroy(ctx); err != nil {
		t.Error(err)
	}
	s.Close()
	if _, err := open("bt_taken"); !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), `"bt_taken"`) {
		t.Fatalf("a named database holding a table: %v, want ErrNotOwned naming it", err)
	}
	var v int
	if err := taken.QueryRow(ctx, "SELECT v FROM precious").Scan(&v); err != nil || v != 42 {
		t.Errorf("bt_taken changed: %v, %d", err, v)
	}
	var templates int
	admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname = 'bt_taken_template'").Scan(&templates)
	if templates != 0 {
		t.Error("a template was seeded for a database that was refused")
	}
}
