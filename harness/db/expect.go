package db

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Querier is what the expected-answer functions need: a *pgx.Conn, a *pgxpool.Pool or a
// pgx.Tx.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Answer is the response a scenario request must get: the status and, for 200 and 201, the
// exact body. Error bodies are not part of the contract.
type Answer struct {
	Status int
	Body   []byte
}

// The expected-answer functions compute a scenario's answer for a key straight from the
// database, with their own plain SQL and encoding/json, so they check the scenario statements
// and the targets' serialisation instead of repeating them. Use them on the trial database
// after a Reset, before anything was written.

// ExpectUser is get-user's answer for id.
func ExpectUser(ctx context.Context, q Querier, id int64) (Answer, error) {
	var u struct {
		ID    int64  `json:"id"`
		Name  string `json:"name"`
		Email string `json:"email"`
	}
	err := q.QueryRow(ctx, "SELECT id, name, email FROM users WHERE id = $1", id).Scan(&u.ID, &u.Name, &u.Email)
	if errors.Is(err, pgx.ErrNoRows) {
		return Answer{Status: 404}, nil
	}
	if err != nil {
		return Answer{}, err
	}
	return answer(200, u)
}

// ExpectUserOrders is list-orders' answer for user id.
func ExpectUserOrders(ctx context.Context, q Querier, id int64) (Answer, error) {
	if found, err := exists(ctx, q, "users", id); err != nil || !found {
		return notFound(err)
	}
	type order struct {
		ID         int64  `json:"id"`
		TotalCents int64  `json:"total_cents"`
		CreatedAt  string `json:"created_at"`
	}
	rows, err := q.Query(ctx, "SELECT id, total_cents, created_at FROM orders WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT 20", id)
	if err != nil {
		return Answer{}, err
	}
	orders := []order{}
	var o order
	var at time.Time
	if _, err := pgx.ForEachRow(rows, []any{&o.ID, &o.TotalCents, &at}, func() error {
		o.CreatedAt = FormatTime(at)
		orders = append(orders, o)
		return nil
	}); err != nil {
		return Answer{}, err
	}
	return answer(200, orders)
}

// ExpectOrderTotal is order-total's answer for order id.
func ExpectOrderTotal(ctx context.Context, q Querier, id int64) (Answer, error) {
	if found, err := exists(ctx, q, "orders", id); err != nil || !found {
		return notFound(err)
	}
	t := struct {
		OrderID    int64 `json:"order_id"`
		Items      int64 `json:"items"`
		TotalCents int64 `json:"total_cents"`
	}{OrderID: id}
	rows, err := q.Query(ctx, "SELECT qty, price_cents FROM order_items WHERE order_id = $1", id)
	if err != nil {
		return Answer{}, err
	}
	var qty, price int64
	if _, err := pgx.ForEachRow(rows, []any{&qty, &price}, func() error {
		t.Items++
		t.TotalCents += qty * price
		return nil
	}); err != nil {
		return Answer{}, err
	}
	return answer(200, t)
}

// exists says whether table has a row with id: list-orders and order-total answer 404 for a
// missing user or order, whatever else they would find.
func exists(ctx context.Context, q Querier, table string, id int64) (bool, error) {
	var found bool
	err := q.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+table+" WHERE id = $1)", id).Scan(&found)
	return found, err
}

// notFound is the answer when exists said no (404) or failed (the error).
func notFound(err error) (Answer, error) {
	if err != nil {
		return Answer{}, err
	}
	return Answer{Status: 404}, nil
}

// CheckCreatedOrder checks a create-order response body against the database: it is exactly
// {"order_id":N}, order N belongs to req's user with the total of req's items, and its items
// are req's, in order. Create-order's answer cannot be computed beforehand (N comes from a
// sequence), so it is checked after the fact.
func CheckCreatedOrder(ctx context.Context, q Querier, body []byte, req CreateOrder) error {
	var resp struct {
		OrderID int64 `json:"order_id"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&resp); err != nil || resp.OrderID < 1 {
		return fmt.Errorf("create-order answered %q, want {\"order_id\":N}", body)
	}
	if want := fmt.Sprintf(`{"order_id":%d}`, resp.OrderID); string(body) != want {
		return fmt.Errorf("create-order answered %q, want %q", body, want)
	}
	var userID, total int64
	err := q.QueryRow(ctx, "SELECT user_id, total_cents FROM orders WHERE id = $1", resp.OrderID).Scan(&userID, &total)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("order %d: not in the database", resp.OrderID)
	}
	if err != nil {
		return err
	}
	var want int64
	for _, it := range req.Items {
		want += it.Qty * it.PriceCents
	}
	if userID != req.UserID || total != want {
		return fmt.Errorf("order %d: user %d, total_cents %d; want user %d, total_cents %d", resp.OrderID, userID, total, req.UserID, want)
	}
	rows, err := q.Query(ctx, "SELECT sku, qty, price_cents FROM order_items WHERE order_id = $1 ORDER BY id", resp.OrderID)
	if err != nil {
		return err
	}
	var got []OrderLine
	for rows.Next() {
		var it OrderLine
		if err := rows.Scan(&it.SKU, &it.Qty, &it.PriceCents); err != nil {
			return err
		}
		got = append(got, it)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if fmt.Sprint(got) != fmt.Sprint(req.Items) {
		return fmt.Errorf("order %d: items %v, want %v", resp.OrderID, got, req.Items)
	}
	return nil
}

// FormatTime renders a timestamp as the scenarios' JSON does: RFC 3339, UTC, whole seconds
// (truncated, as the SQL's to_char does).
func FormatTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// answer encodes v as compact JSON without HTML escaping (JSON.stringify's output).
func answer(status int, v any) (Answer, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return Answer{}, err
	}
	return Answer{Status: status, Body: bytes.TrimSuffix(b.Bytes(), []byte("\n"))}, nil
}
