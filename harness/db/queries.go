package db

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"strconv"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultPoolSize is the connection pool of every target (seed 002's 10).
const DefaultPoolSize = 10

// MaxKeptBody is the largest body buffer a Go target keeps for the next request: the
// scenarios' answers take under 2 KiB (list-orders' 20 orders about 1.5 KiB), and a buffer a
// rare huge one grew is left to the collector rather than pinned.
const MaxKeptBody = 64 << 10

// Errors the scenario methods return; HTTPStatus maps them.
var (
	ErrNotFound = errors.New("not found")   // 404: no such user or order
	ErrBadInput = errors.New("bad request") // 400: an id or a request body the scenario rejects
)

var errBadID = fmt.Errorf("%w: an id is 1 to %d in decimal digits", ErrBadInput, math.MaxInt32)

// HTTPStatus is the status a server answers for err from a scenario method: 404 for
// ErrNotFound, 400 for ErrBadInput, 500 for anything else (a database failure).
func HTTPStatus(err error) int {
	switch {
	case errors.Is(err, ErrNotFound):
		return 404
	case errors.Is(err, ErrBadInput):
		return 400
	}
	return 500
}

// ParseID reads a path segment as an id: 1 to 10 ASCII digits, no sign, value 1..2^31-1
// (ids are PostgreSQL integers). Anything else is ErrBadInput.
func ParseID[T string | []byte](s T) (int64, error) {
	if len(s) == 0 || len(s) > 10 {
		return 0, errBadID
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, errBadID
		}
		n = n*10 + int64(c-'0')
	}
	if n < 1 || n > math.MaxInt32 {
		return 0, errBadID
	}
	return n, nil
}

// OrderLine is one item of a create-order request.
type OrderLine struct {
	SKU        string `json:"sku"`
	Qty        int64  `json:"qty"`
	PriceCents int64  `json:"price_cents"`
}

// CreateOrder is a create-order request body:
// {"user_id":1,"items":[{"sku":"SKU-00042","qty":2,"price_cents":1999}]}.
type CreateOrder struct {
	UserID int64       `json:"user_id"`
	Items  []OrderLine `json:"items"`
}

// ParseCreateOrder decodes and validates a create-order body. The rules every target applies
// identically (they are what JSON.parse and a few checks give in JavaScript): a JSON object
// with the keys "user_id" and "items", matched exactly (other keys are ignored; of a repeated
// key the last counts); user_id an integer 1..2^31-1; items an array of 1..MaxOrderItems
// objects, each with "sku" a string of 1..MaxSKULen UTF-8 bytes without control characters,
// "qty" an integer 1..MaxQty and "price_cents" an integer 1..MaxPriceCents. An integer is any
// JSON number whose value is whole (1, 1.0 and 1e0 alike). Anything else is ErrBadInput.
func ParseCreateOrder(body []byte) (CreateOrder, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return CreateOrder{}, fmt.Errorf("%w: body: %v", ErrBadInput, err)
	}
	var o CreateOrder
	var err error
	if o.UserID, err = jsonInt(top, "user_id"); err != nil {
		return CreateOrder{}, err
	}
	raw, ok := top["items"]
	if !ok {
		return CreateOrder{}, fmt.Errorf("%w: no items", ErrBadInput)
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return CreateOrder{}, fmt.Errorf("%w: items must be an array of objects", ErrBadInput)
	}
	if len(items) < 1 || len(items) > MaxOrderItems {
		return CreateOrder{}, fmt.Errorf("%w: items must hold 1..%d items", ErrBadInput, MaxOrderItems)
	}
	o.Items = make([]OrderLine, len(items))
	for i, it := range items {
		l := &o.Items[i]
		sku, ok := it["sku"]
		if !ok || json.Unmarshal(sku, &l.SKU) != nil {
			return CreateOrder{}, fmt.Errorf("%w: items[%d].sku must be a string", ErrBadInput, i)
		}
		if l.Qty, err = jsonInt(it, "qty"); err != nil {
			return CreateOrder{}, err
		}
		if l.PriceCents, err = jsonInt(it, "price_cents"); err != nil {
			return CreateOrder{}, err
		}
	}
	return o, o.Validate()
}

// jsonInt reads m[key] as JavaScript would: a number (a double) with a whole value. The range
// is Validate's to check; JSON null reads as 0, which no field accepts.
func jsonInt(m map[string]json.RawMessage, key string) (int64, error) {
	raw, ok := m[key]
	if !ok {
		return 0, fmt.Errorf("%w: no %s", ErrBadInput, key)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, fmt.Errorf("%w: %s must be an integer", ErrBadInput, key)
	}
	return int64(f), nil
}

// Validate applies ParseCreateOrder's rules to o.
func (o CreateOrder) Validate() error {
	if o.UserID < 1 || o.UserID > math.MaxInt32 {
		return fmt.Errorf("%w: user_id must be 1..%d", ErrBadInput, math.MaxInt32)
	}
	if len(o.Items) < 1 || len(o.Items) > MaxOrderItems {
		return fmt.Errorf("%w: items must hold 1..%d items", ErrBadInput, MaxOrderItems)
	}
	for i, it := range o.Items {
		switch {
		case len(it.SKU) < 1 || len(it.SKU) > MaxSKULen:
			return fmt.Errorf("%w: items[%d].sku must be 1..%d bytes", ErrBadInput, i, MaxSKULen)
		case hasControl(it.SKU):
			return fmt.Errorf("%w: items[%d].sku holds a control character", ErrBadInput, i)
		case it.Qty < 1 || it.Qty > MaxQty:
			return fmt.Errorf("%w: items[%d].qty must be 1..%d", ErrBadInput, i, MaxQty)
		case it.PriceCents < 1 || it.PriceCents > MaxPriceCents:
			return fmt.Errorf("%w: items[%d].price_cents must be 1..%d", ErrBadInput, i, MaxPriceCents)
		}
	}
	return nil
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// Queries runs the four scenarios over a pgx pool: the extended protocol, each statement
// prepared once per connection under its Stmt* name, parameters and results in text format,
// so result bytes go into the response as they arrive from the server. Each connection is a
// lane that pipelines the queries waiting for it (pipeline.go). Safe for concurrent use.
type Queries struct {
	pool  *pgxpool.Pool // opens the lanes' connections
	lanes []lane        // one a connection
}

// PoolOptions shape the pool.
type PoolOptions struct {
	Size int // connections, opened at once and kept; 0: DefaultPoolSize
}

// NewQueries opens a pool of o.Size connections to url (Store.URL()), prepares the four
// statements on each and gives each to a lane. Every connection's socket does its reads and
// writes as raw system calls (RawSocket), so a query costs each target the same and wakes no
// sysmon.
func NewQueries(ctx context.Context, url string, o PoolOptions) (*Queries, error) {
	if o.Size == 0 {
		o.Size = DefaultPoolSize
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	cfg.MaxConns, cfg.MinConns = int32(o.Size), int32(o.Size)
	cfg.ConnConfig.AfterNetConnect = func(_ context.Context, _ *pgconn.Config, c net.Conn) (net.Conn, error) {
		return RawSocket(c), nil
	}
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		for _, st := range Statements {
			if _, err := c.Prepare(ctx, st.Name, st.SQL); err != nil {
				return fmt.Errorf("preparing %s: %w", st.Name, err)
			}
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// Open every connection now, so the first requests do not pay for connecting.
	q := &Queries{pool: pool, lanes: make([]lane, o.Size)}
	for i := range q.lanes {
		ln := &q.lanes[i]
		ln.pool = pool
		if err := ln.open(ctx); err != nil {
			q.Close()
			return nil, fmt.Errorf("opening the pool: %w", err)
		}
	}
	return q, nil
}

// Close answers the queries already queued, then closes the pool.
func (q *Queries) Close() {
	for i := range q.lanes {
		q.lanes[i].close()
	}
	q.pool.Close()
}

func checkID(id int64) error {
	if id < 1 || id > math.MaxInt32 {
		return errBadID
	}
	return nil
}

// execID runs Statements[stmt], whose one parameter is id, a valid one (checkID), calling row
// on each row.
func (q *Queries) execID(ctx context.Context, id int64, stmt int, row func([][]byte)) error {
	if err := checkID(id); err != nil {
		return err
	}
	var num [10]byte
	return q.exec(ctx, stmt, [][]byte{strconv.AppendInt(num[:0], id, 10)}, row)
}

// AppendUser appends get-user's 200 body for user id to dst:
// {"id":1,"name":"Ada Lovelace","email":"ada.lovelace1@example.com"}.
func (q *Queries) AppendUser(ctx context.Context, dst []byte, id int64) ([]byte, error) {
	return q.appendRow(ctx, dst, id, stGetUser, userJSON)
}

// jsonField is one column of a row in its JSON object: the text before its value (the object's
// opening, a comma and the quoted key) and whether the value is a string to quote. The other
// values, numbers, are written as PostgreSQL's text format gives them.
type jsonField struct {
	prefix string
	quoted bool
}

// The bodies' objects, column by column: get-user's {"id":1,"name":"…","email":"…"}, an
// order of list-orders' {"id":7,"total_cents":2497,"created_at":"…"} and order-total's
// {"order_id":7,"items":3,"total_cents":2497}.
var (
	userJSON       = []jsonField{{`{"id":`, false}, {`,"name":`, true}, {`,"email":`, true}}
	orderJSON      = []jsonField{{`{"id":`, false}, {`,"total_cents":`, false}, {`,"created_at":`, true}}
	orderTotalJSON = []jsonField{{`{"order_id":`, false}, {`,"items":`, false}, {`,"total_cents":`, false}}
)

// appendObject appends the JSON object of a row's values v, described by fields.
func appendObject(dst []byte, fields []jsonField, v [][]byte) []byte {
	for i, f := range fields {
		dst = append(dst, f.prefix...)
		if f.quoted {
			dst = appendJSONString(dst, v[i])
		} else {
			dst = append(dst, v[i]...)
		}
	}
	return append(dst, '}')
}

// appendRow runs a single-row statement for id and appends the row's JSON object to dst, or
// returns dst unchanged with ErrNotFound when there is no row (or with the error).
func (q *Queries) appendRow(ctx context.Context, dst []byte, id int64, stmt int, fields []jsonField) ([]byte, error) {
	start, found := len(dst), false
	err := q.execID(ctx, id, stmt, func(v [][]byte) {
		dst = appendObject(dst, fields, v)
		found = true
	})
	if err != nil {
		return dst[:start], err
	}
	if !found {
		return dst[:start], ErrNotFound
	}
	return dst, nil
}

// AppendUserOrders appends list-orders' 200 body for user id to dst: the latest 20 orders,
// newest first, [{"id":7,"total_cents":2497,"created_at":"2025-03-04T05:06:07Z"},…], or [] for
// a user without orders.
func (q *Queries) AppendUserOrders(ctx context.Context, dst []byte, id int64) ([]byte, error) {
	start, rows, orders := len(dst), 0, 0
	dst = append(dst, '[')
	err := q.execID(ctx, id, stListOrders, func(v [][]byte) {
		rows++
		if v[0] == nil { // the user exists and has no order
			return
		}
		if orders > 0 {
			dst = append(dst, ',')
		}
		orders++
		dst = appendObject(dst, orderJSON, v)
	})
	if err != nil {
		return dst[:start], err
	}
	if rows == 0 {
		return dst[:start], ErrNotFound
	}
	return append(dst, ']'), nil
}

// AppendOrderTotal appends order-total's 200 body for order id to dst:
// {"order_id":7,"items":3,"total_cents":2497}.
func (q *Queries) AppendOrderTotal(ctx context.Context, dst []byte, id int64) ([]byte, error) {
	return q.appendRow(ctx, dst, id, stOrderTotal, orderTotalJSON)
}

// AppendCreateOrder inserts order o and its items in one transaction and appends
// create-order's 201 body to dst: {"order_id":1000001}. An invalid o or a user_id that does
// not exist is ErrBadInput, and nothing is written.
func (q *Queries) AppendCreateOrder(ctx context.Context, dst []byte, o CreateOrder) ([]byte, error) {
	if err := o.Validate(); err != nil {
		return dst, err
	}
	return q.createOrder(ctx, dst, o)
}

// createOrder is AppendCreateOrder without the validation (tests use it to make the database
// itself refuse an item).
func (q *Queries) createOrder(ctx context.Context, dst []byte, o CreateOrder) ([]byte, error) {
	// The four text parameters share one buffer: user id, then the three array literals.
	var scratch [512]byte
	buf := strconv.AppendInt(scratch[:0], o.UserID, 10)
	ends := [4]int{len(buf)}
	buf = append(buf, '{')
	for i, it := range o.Items {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendArrayString(buf, it.SKU)
	}
	buf = append(buf, '}')
	ends[1] = len(buf)
	buf = appendIntArray(buf, o.Items, func(it OrderLine) int64 { return it.Qty })
	ends[2] = len(buf)
	buf = appendIntArray(buf, o.Items, func(it OrderLine) int64 { return it.PriceCents })
	ends[3] = len(buf)
	params := [][]byte{buf[:ends[0]], buf[ends[0]:ends[1]], buf[ends[1]:ends[2]], buf[ends[2]:ends[3]]}

	start, found := len(dst), false
	err := q.exec(ctx, stCreateOrder, params, func(v [][]byte) {
		dst = append(dst, `{"order_id":`...)
		dst = append(dst, v[0]...)
		dst = append(dst, '}')
		found = true
	})
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "23503" { // foreign_key_violation: no such user
			return dst[:start], fmt.Errorf("%w: user %d does not exist", ErrBadInput, o.UserID)
		}
		return dst[:start], err
	}
	if !found {
		return dst[:start], errors.New("create_order returned no row")
	}
	return dst, nil
}

func appendIntArray(buf []byte, items []OrderLine, field func(OrderLine) int64) []byte {
	buf = append(buf, '{')
	for i, it := range items {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendInt(buf, field(it), 10)
	}
	return append(buf, '}')
}

// appendArrayString appends s as a double-quoted element of a PostgreSQL array literal.
func appendArrayString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			buf = append(buf, '\\')
		}
		buf = append(buf, s[i])
	}
	return append(buf, '"')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way JavaScript's JSON.stringify writes it:
// quote, backslash and control characters escaped (\b \f \n \r \t, else \u00XX), everything
// else as is. A byte that is not UTF-8 becomes \ufffd, as encoding/json writes it (a
// JavaScript string cannot hold one).
func appendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, s[i:i+n]...)
			}
			i += n
			continue
		}
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c >= 0x20:
			dst = append(dst, c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
	}
	return append(dst, '"')
}
