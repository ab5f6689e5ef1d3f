package db

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Default database names.
const (
	DefaultDatabase = "bindrace"          // the trial database the targets use
	DefaultTemplate = "bindrace_template" // the seeded template every trial is cloned from
)

// Options say where the data set lives and what it is.
type Options struct {
	// URL reaches the server as a role that may create databases: Cluster.URL("postgres"), or a
	// user's external server (the CLI's --db-url), as a postgres:// URL. Its database is used
	// for administration only ("" in the URL: postgres); it must not be Database or Template.
	URL string
	// Database is the trial database the targets use, cloned afresh by every Reset.
	// "": DefaultDatabase.
	Database string
	// Template is the seeded database the trials are cloned from. "": DefaultTemplate.
	Template string
	// Scale shrinks the data set (0.01: 1,000 users, 10,000 orders, 30,000 items). 0: 1.
	Scale float64
	// Seed of the generator. 0: DefaultSeed.
	Seed uint64
	// Progress receives one line per seeding step when set.
	Progress io.Writer
}

// UserURL reads a user's database URL (the CLI's --db-url) into the Options that say where the
// data set goes. A URL naming no database, or the maintenance database postgres, keeps the
// harness's own names (DefaultDatabase, DefaultTemplate); a URL naming another database makes
// that the trial database, its template <name>_template. Either way the server is administered
// through postgres. Open later takes a named database only when it is empty or carries the
// ownership marker.
func UserURL(raw string) (Options, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return Options{}, fmt.Errorf("database URL: want postgres://user:password@host:port/database, got %q", redact(raw))
	}
	o := Options{}
	switch name := strings.Trim(u.Path, "/"); name {
	case "", adminDatabase:
	case "template0", "template1":
		return Options{}, fmt.Errorf("database URL names %s, PostgreSQL's own template: name the database the harness may use, or none", name)
	default:
		o.Database, o.Template = name, name+"_template"
	}
	u.Path = "/" + adminDatabase
	o.URL = u.String()
	return o, nil
}

// adminDatabase is where the harness connects to create, clone and drop its databases.
const adminDatabase = "postgres"

// ErrNotOwned: a database of the name the harness wants exists, is not empty and does not carry
// the harness's ownership marker; the harness leaves it untouched.
var ErrNotOwned = errors.New("database not owned by bindrace")

// NotOwnedError names the database and why it is not the harness's. It matches ErrNotOwned.
type NotOwnedError struct {
	Database string
	Reason   string
}

func (e *NotOwnedError) Error() string {
	return fmt.Sprintf("database %q exists, is not empty and carries no bindrace ownership marker (%s); bindrace leaves it untouched: drop it yourself, or name another database (an empty one, or a new name)", e.Database, e.Reason)
}

// Is makes errors.Is(err, ErrNotOwned) true.
func (e *NotOwnedError) Is(target error) bool { return target == ErrNotOwned }

// Store is the harness's data set on one server: a marked template seeded once, and a trial
// database cloned from it by every Reset.
type Store struct {
	Dataset Dataset
	// Seeded is true when Open built the template, false when it reused a complete one of the
	// same seed, scale and schema version.
	Seeded bool
	// SeedTime is how long building the template took (0 when reused).
	SeedTime time.Duration

	opts     Options
	base     *url.URL // the admin URL; other databases' URLs differ in the path only
	admin    *pgx.Conn
	strategy string // the CREATE DATABASE strategy clause for clones
}

// marker is the row of bindrace_owner.
type marker struct {
	seed          uint64
	scale         float64
	schemaVersion int
	complete      bool
}

// Open connects to the server and makes sure the template holds the data set: it reuses a
// marked, complete template of the same seed, scale and schema version, and otherwise drops a
// marked one and seeds it again (a database of that name without the marker is refused with
// ErrNotOwned). It does not touch the trial database: Reset does.
func Open(ctx context.Context, o Options) (*Store, error) {
	if o.Database == "" {
		o.Database = DefaultDatabase
	}
	if o.Template == "" {
		o.Template = DefaultTemplate
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	ds, err := NewDataset(o.Seed, o.Scale)
	if err != nil {
		return nil, err
	}
	base, err := url.Parse(o.URL)
	if err != nil || (base.Scheme != "postgres" && base.Scheme != "postgresql") {
		return nil, fmt.Errorf("database URL: want postgres://user:password@host:port/database, got %q", redact(o.URL))
	}
	if strings.Trim(base.Path, "/") == "" {
		base.Path = "/" + adminDatabase
	}
	adminDB := strings.Trim(base.Path, "/")
	if o.Database == o.Template || adminDB == o.Database || adminDB == o.Template {
		return nil, fmt.Errorf("database names: the URL's database %q, the trial database %q and the template %q must differ", adminDB, o.Database, o.Template)
	}
	s := &Store{Dataset: ds, opts: o, base: base}
	if s.admin, err = pgx.Connect(ctx, base.String()); err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", redact(base.String()), err)
	}
	var version int
	if err := s.admin.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		s.admin.Close(ctx)
		return nil, err
	}
	switch {
	case version < 140000: // DROP DATABASE … WITH (FORCE) is 13's, hash_record 14's
		s.admin.Close(ctx)
		return nil, fmt.Errorf("PostgreSQL %d.%d is too old: bindrace needs 14 or newer", version/10000, version%10000)
	case version >= 150000:
		// FILE_COPY copies the template's files after a checkpoint instead of writing every
		// block through the WAL (15's default, WAL_LOG): about 2.5 times faster at scale 1
		// here; see README.md.
		s.strategy = " STRATEGY = FILE_COPY"
	}
	// A trial database the harness may not use is refused before a template is seeded for it.
	if err := s.claimable(ctx, o.Database); err != nil {
		s.admin.Close(ctx)
		return nil, err
	}
	if err := s.ensureTemplate(ctx); err != nil {
		s.admin.Close(ctx)
		return nil, err
	}
	return s, nil
}

// URL is the trial database's URL, for the targets.
func (s *Store) URL() string { return dbURL(s.base, s.opts.Database) }

// TemplateURL is the template's URL. Nothing may stay connected to it while Reset clones it.
func (s *Store) TemplateURL() string { return dbURL(s.base, s.opts.Template) }

// dbURL is the URL of database name on the server of the admin URL base.
func dbURL(base *url.URL, name string) string {
	u := *base
	u.Path = "/" + name
	return u.String()
}

// Close ends the administrative connection. The databases stay.
func (s *Store) Close() error { return s.admin.Close(context.Background()) }

// Reset drops the trial database if it carries the marker (a database of that name without
// it is refused with ErrNotOwned and left alone) and clones it afresh from the template, so
// every trial starts from identical data and sequences. It returns the time all that took.
// Connections to the trial database are terminated (DROP DATABASE … WITH (FORCE)): stop the
// targets first.
func (s *Store) Reset(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	if err := s.dropOwned(ctx, s.opts.Database); err != nil {
		return 0, err
	}
	_, err := s.admin.Exec(ctx, "CREATE DATABASE "+ident(s.opts.Database)+" TEMPLATE "+ident(s.opts.Template)+s.strategy)
	if err != nil {
		return 0, fmt.Errorf("cloning %s from %s: %w", s.opts.Database, s.opts.Template, err)
	}
	return time.Since(start), nil
}

// Destroy drops the trial database and the template, each only if it carries the marker.
func (s *Store) Destroy(ctx context.Context) error {
	if err := s.dropOwned(ctx, s.opts.Database); err != nil {
		return err
	}
	return s.dropOwned(ctx, s.opts.Template)
}

// Checksum is Checksum over the trial database.
func (s *Store) Checksum(ctx context.Context) (string, error) {
	conn, err := pgx.Connect(ctx, s.URL())
	if err != nil {
		return "", err
	}
	defer conn.Close(context.Background())
	return Checksum(ctx, conn)
}

// Checksum summarises the data set's content cheaply: per table its row count and the sum of
// a hash of every row, and the sequences' positions. Two databases with the same checksum
// hold the same rows and will hand out the same next ids.
func Checksum(ctx context.Context, q Querier) (string, error) {
	var sum string
	if err := q.QueryRow(ctx, checksumSQL).Scan(&sum); err != nil {
		return "", fmt.Errorf("checksum: %w", err)
	}
	return sum, nil
}

// TemplateBytes is the template's size on disk (pg_database_size): what every Reset copies.
func (s *Store) TemplateBytes(ctx context.Context) (int64, error) {
	var n int64
	err := s.admin.QueryRow(ctx, "SELECT pg_database_size($1)", s.opts.Template).Scan(&n)
	return n, err
}

// databaseExists says whether the server admin is connected to has database name.
func databaseExists(ctx context.Context, admin *pgx.Conn, name string) (bool, error) {
	var ok bool
	err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok)
	return ok, err
}

// readMarker connects to database name and reads its marker; a database without one is a
// *NotOwnedError.
func (s *Store) readMarker(ctx context.Context, name string) (marker, error) {
	conn, err := pgx.Connect(ctx, dbURL(s.base, name))
	if err != nil {
		return marker{}, fmt.Errorf("checking the ownership marker of %q: %w", name, err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, "SELECT marker, seed, scale, schema_version, complete FROM bindrace_owner")
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
			return marker{}, &NotOwnedError{Database: name, Reason: "no table bindrace_owner"}
		}
		return marker{}, fmt.Errorf("checking the ownership marker of %q: %w", name, err)
	}
	var m marker
	n := 0
	for rows.Next() {
		var text string
		var seed int64
		if err := rows.Scan(&text, &seed, &m.scale, &m.schemaVersion, &m.complete); err != nil {
			return marker{}, fmt.Errorf("checking the ownership marker of %q: %w", name, err)
		}
		if text != OwnerMarker {
			return marker{}, &NotOwnedError{Database: name, Reason: fmt.Sprintf("bindrace_owner holds %q", text)}
		}
		m.seed = uint64(seed)
		n++
	}
	if err := rows.Err(); err != nil {
		return marker{}, fmt.Errorf("checking the ownership marker of %q: %w", name, err)
	}
	if n != 1 {
		return marker{}, &NotOwnedError{Database: name, Reason: fmt.Sprintf("bindrace_owner has %d rows, not 1", n)}
	}
	return m, nil
}

// claimable is nil when the harness may drop database name: it does not exist, carries the
// marker, or is empty (nothing in it to lose); else a *NotOwnedError.
func (s *Store) claimable(ctx context.Context, name string) error {
	ok, err := databaseExists(ctx, s.admin, name)
	if err != nil || !ok {
		return err
	}
	_, err = s.readMarker(ctx, name)
	var noe *NotOwnedError
	if !errors.As(err, &noe) {
		return err
	}
	empty, eerr := s.empty(ctx, name)
	if eerr != nil || !empty {
		return errors.Join(err, eerr)
	}
	return nil
}

// empty reports whether database name holds no relation (table, view, sequence, ...) and no
// function outside PostgreSQL's own schemas.
func (s *Store) empty(ctx context.Context, name string) (bool, error) {
	conn, err := pgx.Connect(ctx, dbURL(s.base, name))
	if err != nil {
		return false, fmt.Errorf("checking whether %q is empty: %w", name, err)
	}
	defer conn.Close(context.Background())
	var n int
	err = conn.QueryRow(ctx, emptySQL).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("checking whether %q is empty: %w", name, err)
	}
	return n == 0, nil
}

// dropOwned drops database name if it exists and is the harness's to drop (claimable).
func (s *Store) dropOwned(ctx context.Context, name string) error {
	ok, err := databaseExists(ctx, s.admin, name)
	if err != nil || !ok {
		return err
	}
	if err := s.claimable(ctx, name); err != nil {
		return err
	}
	if _, err := s.admin.Exec(ctx, "DROP DATABASE "+ident(name)+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("dropping %s: %w", name, err)
	}
	return nil
}

// ensureTemplate reuses a complete, matching template or builds one.
func (s *Store) ensureTemplate(ctx context.Context) error {
	name := s.opts.Template
	ok, err := databaseExists(ctx, s.admin, name)
	if err != nil {
		return err
	}
	if ok {
		m, err := s.readMarker(ctx, name)
		if err != nil {
			if err := s.claimable(ctx, name); err != nil {
				return err
			}
			// Empty: dropped and seeded below.
		}
		if m.complete && m.seed == s.Dataset.Seed && m.scale == s.Dataset.Scale && m.schemaVersion == SchemaVersion {
			return nil
		}
		progressf(s.opts.Progress, "db: template %s is incomplete or of another data set (seed %d, scale %v, schema %d): rebuilding", name, m.seed, m.scale, m.schemaVersion)
		if _, err := s.admin.Exec(ctx, "DROP DATABASE "+ident(name)+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("dropping %s: %w", name, err)
		}
	}
	start := time.Now()
	if created, err := s.seed(ctx); err != nil {
		if created {
			s.dropAfterFailure(name)
		}
		return fmt.Errorf("seeding %s: %w", name, err)
	}
	s.Seeded, s.SeedTime = true, time.Since(start)
	progressf(s.opts.Progress, "db: template %s seeded in %s", name, s.SeedTime.Round(time.Millisecond))
	return nil
}

// dropAfterFailure drops a template this Store created and failed to seed, whatever it holds
// (perhaps no marker yet), on a fresh connection: the failure may have been a cancellation,
// which closes the administrative connection. Should that fail too, the marker, written first,
// lets the next Open drop it.
func (s *Store) dropAfterFailure(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.base.String())
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	conn.Exec(ctx, "DROP DATABASE IF EXISTS "+ident(name)+" WITH (FORCE)")
}

// seed creates the template and fills it; created says whether the database was created. The
// marker is its first table, written before any data (complete = false), so a seeding cut
// short leaves a database the next Open may drop.
func (s *Store) seed(ctx context.Context) (created bool, err error) {
	d := s.Dataset
	name := s.opts.Template
	progressf(s.opts.Progress, "db: seeding %s: %d users, %d orders, %d items (seed %d, scale %v)", name, d.Users, d.Orders, d.Items, d.Seed, d.Scale)
	_, err = s.admin.Exec(ctx, "CREATE DATABASE "+ident(name)+" TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'")
	if err != nil {
		return false, err
	}
	return true, s.fill(ctx)
}

// fill creates the schema in the new template and loads, indexes and analyses the data.
func (s *Store) fill(ctx context.Context) error {
	d := s.Dataset
	name := s.opts.Template
	conn, err := pgx.Connect(ctx, dbURL(s.base, name))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, schemaSQL); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "INSERT INTO bindrace_owner (marker, seed, scale, schema_version) VALUES ($1, $2, $3, $4)",
		OwnerMarker, int64(d.Seed), d.Scale, SchemaVersion); err != nil {
		return err
	}

	step := time.Now()
	if err := load(ctx, dbURL(s.base, name), d); err != nil {
		return err
	}
	progressf(s.opts.Progress, "db: loaded in %s", time.Since(step).Round(time.Millisecond))

	step = time.Now()
	// Session settings of the seeding connection only; the server's configuration is stock.
	if _, err := conn.Exec(ctx, "SET maintenance_work_mem = '256MB'"); err != nil {
		return err
	}
	for _, q := range indexSQL {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if _, err := conn.Exec(ctx, `SELECT setval(pg_get_serial_sequence('users', 'id'), $1),
		setval(pg_get_serial_sequence('orders', 'id'), $2),
		setval(pg_get_serial_sequence('order_items', 'id'), $3)`, d.Users, d.Orders, d.Items); err != nil {
		return err
	}
	progressf(s.opts.Progress, "db: indexes and foreign keys in %s", time.Since(step).Round(time.Millisecond))

	// Freeze and analyse once here, so every clone starts with statistics, hint bits and a
	// visibility map already set instead of paying for them during its first trial.
	step = time.Now()
	if _, err := conn.Exec(ctx, "VACUUM (FREEZE, ANALYZE)"); err != nil {
		return err
	}
	progressf(s.opts.Progress, "db: vacuum and analyze in %s", time.Since(step).Round(time.Millisecond))
	_, err = conn.Exec(ctx, "UPDATE bindrace_owner SET complete = true")
	return err
}

// progressf writes a line of the template's progress to w (nil: nowhere).
func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// redact hides a URL's password for error messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an unparsable URL)"
	}
	if u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
