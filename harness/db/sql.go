package db

// The scenarios' SQL. Every target runs exactly this text as named prepared statements on a
// pool of DefaultPoolSize connections: the Go targets through Queries, the Node target from
// these strings injected into its bundle. Each statement's column names and order are the
// JSON keys and their order in the response, so a row serialised as it comes (JSON.stringify
// of a node-postgres row) is already the response object; every column is an integer or text,
// which every driver returns as a JSON number or string.
//
// Formats: money is an integer number of cents; created_at is RFC 3339 in UTC with whole
// seconds ("2025-03-04T05:06:07Z"), formatted by PostgreSQL itself so no driver or language
// renders it differently.

// Statement names, the same on every target.
const (
	StmtGetUser     = "get_user"
	StmtListOrders  = "list_orders"
	StmtOrderTotal  = "order_total"
	StmtCreateOrder = "create_order"
)

// SQLGetUser, get-user (GET /db/users/{id}): one row {"id","name","email"}, none when the user
// does not exist (404).
const SQLGetUser = `SELECT id, name, email FROM users WHERE id = $1`

// SQLListOrders, list-orders (GET /db/users/{id}/orders): the user's latest 20 orders, newest
// first (ties by id, descending), as rows {"id","total_cents","created_at"}. No row at all: the
// user does not exist (404). One row whose id is NULL: the user exists and has no order (200
// with []).
const SQLListOrders = `SELECT o.id, o.total_cents, ` +
	`to_char(o.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at ` +
	`FROM users u LEFT JOIN LATERAL (` +
	`SELECT id, total_cents, created_at FROM orders WHERE user_id = u.id ` +
	`ORDER BY created_at DESC, id DESC LIMIT 20) o ON true ` +
	`WHERE u.id = $1 ORDER BY o.created_at DESC, o.id DESC`

// SQLOrderTotal, order-total (GET /db/orders/{id}/total): one row
// {"order_id","items","total_cents"}: the number of line items and the sum of qty ×
// price_cents over them; none when the order does not exist (404).
const SQLOrderTotal = `SELECT o.id AS order_id, count(i.id)::int AS items, ` +
	`coalesce(sum(i.qty * i.price_cents), 0)::int AS total_cents ` +
	`FROM orders o LEFT JOIN order_items i ON i.order_id = o.id ` +
	`WHERE o.id = $1 GROUP BY o.id`

// SQLCreateOrder, create-order (POST /db/orders): inserts the order and its items in one
// statement, hence one transaction (all or nothing), and returns one row {"order_id"} (201).
// Parameters: $1 user_id, $2 the items' skus (text[]), $3 their qtys (int[]), $4 their
// price_cents (int[]), the arrays in the request's item order; the order's total_cents is
// computed from them, and item ids follow the request's order. A user_id that does not exist
// fails the foreign key (SQLSTATE 23503: 400).
const SQLCreateOrder = `WITH line AS (` +
	`SELECT * FROM unnest($2::text[], $3::int[], $4::int[]) WITH ORDINALITY AS l(sku, qty, price_cents, n)), ` +
	`o AS (INSERT INTO orders (user_id, total_cents) ` +
	`SELECT $1::int, sum(qty * price_cents) FROM line RETURNING id), ` +
	`i AS (INSERT INTO order_items (order_id, sku, qty, price_cents) ` +
	`SELECT o.id, line.sku, line.qty, line.price_cents FROM o, line ORDER BY line.n) ` +
	`SELECT id AS order_id FROM o`

// Statement is one named scenario statement.
type Statement struct {
	Name string
	SQL  string
}

// Indexes into Statements: a Queries lane keeps each statement's description at its index.
const (
	stGetUser = iota
	stListOrders
	stOrderTotal
	stCreateOrder
)

// Statements are the four scenario statements, for targets that prepare them by name.
var Statements = [...]Statement{
	stGetUser:     {StmtGetUser, SQLGetUser},
	stListOrders:  {StmtListOrders, SQLListOrders},
	stOrderTotal:  {StmtOrderTotal, SQLOrderTotal},
	stCreateOrder: {StmtCreateOrder, SQLCreateOrder},
}

// Limits of a create-order request, checked before the database sees it (and again by the
// schema's CHECK constraints). They keep every order's total under 2^31 cents, so totals are
// 32-bit integers everywhere.
const (
	MaxOrderItems = 100
	MaxSKULen     = 64
	MaxQty        = 100
	MaxPriceCents = 100_000
)

// emptySQL counts what a user put in a database: relations and functions outside PostgreSQL's
// own schemas. A database where it is 0 holds nothing to lose.
const emptySQL = `SELECT (SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%')
	+ (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname NOT IN ('pg_catalog', 'information_schema'))`

// OwnerMarker is the text of the ownership marker: a database is the harness's to drop or
// reseed only if its table bindrace_owner holds exactly one row with this marker.
const OwnerMarker = "bindrace benchmark database: created by bindrace, dropped and recreated by it at will"

// schemaSQL creates the marker and the three tables, without indexes (they are built after
// the load).
const schemaSQL = `
CREATE TABLE bindrace_owner (
	marker         text NOT NULL,
	created_at     timestamptz NOT NULL DEFAULT now(),
	seed           bigint NOT NULL,
	scale          double precision NOT NULL,
	schema_version integer NOT NULL,
	complete       boolean NOT NULL DEFAULT false
);
CREATE TABLE users (
	id    integer GENERATED BY DEFAULT AS IDENTITY,
	name  text NOT NULL,
	email text NOT NULL
);
CREATE TABLE orders (
	id          integer GENERATED BY DEFAULT AS IDENTITY,
	user_id     integer NOT NULL,
	total_cents integer NOT NULL CHECK (total_cents >= 0),
	created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE order_items (
	id          integer GENERATED BY DEFAULT AS IDENTITY,
	order_id    integer NOT NULL,
	sku         text NOT NULL CHECK (length(sku) BETWEEN 1 AND 64),
	qty         integer NOT NULL CHECK (qty BETWEEN 1 AND 100),
	price_cents integer NOT NULL CHECK (price_cents BETWEEN 1 AND 100000)
)`

// indexSQL runs after the load, one statement at a time.
var indexSQL = []string{
	`ALTER TABLE users ADD PRIMARY KEY (id)`,
	`ALTER TABLE orders ADD PRIMARY KEY (id)`,
	`ALTER TABLE order_items ADD PRIMARY KEY (id)`,
	`CREATE INDEX orders_user_latest ON orders (user_id, created_at DESC, id DESC)`,
	`CREATE INDEX order_items_order ON order_items (order_id)`,
	`ALTER TABLE orders ADD FOREIGN KEY (user_id) REFERENCES users (id)`,
	`ALTER TABLE order_items ADD FOREIGN KEY (order_id) REFERENCES orders (id)`,
}

// checksumSQL: per table the row count and the sum of hash_record over its rows (every
// column through its type's own hash function), and the sequences' positions (the next created
// order's id). Order-independent, one pass per table: about 1.5 s at scale 1 here.
const checksumSQL = `SELECT
 (SELECT count(*) || ':' || coalesce(sum(hash_record(t)::bigint), 0) FROM users t) || ' ' ||
 (SELECT count(*) || ':' || coalesce(sum(hash_record(t)::bigint), 0) FROM orders t) || ' ' ||
 (SELECT count(*) || ':' || coalesce(sum(hash_record(t)::bigint), 0) FROM order_items t) || ' ' ||
 (SELECT string_agg(sequencename || '=' || coalesce(last_value, 0), ',' ORDER BY sequencename)
   FROM pg_sequences WHERE schemaname = 'public')`
