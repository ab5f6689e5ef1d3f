//go:build long

// Long test tier (make test-all, -tags long): the queries against a seeded PostgreSQL.

package db

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// sameAnswer runs a scenario method and its expected-answer function for one key.
func sameAnswer(t *testing.T, name string, id int64,
	got func(context.Context, []byte, int64) ([]byte, error),
	want func(context.Context, Querier, int64) (Answer, error), q Querier) Answer {
	t.Helper()
	ctx := context.Background()
	exp, err := want(ctx, q, id)
	if err != nil {
		t.Fatalf("%s(%d) expected answer: %v", name, id, err)
	}
	prefix := []byte("prefix:")
	body, err := got(ctx, prefix, id)
	if !bytes.HasPrefix(body, prefix) {
		t.Fatalf("%s(%d) did not append to dst: %q", name, id, body)
	}
	body = body[len(prefix):]
	if status := statusOf(err); status != exp.Status {
		t.Fatalf("%s(%d): status %d (%v), want %d", name, id, status, err, exp.Status)
	}
	if exp.Status == 200 {
		if !bytes.Equal(body, exp.Body) {
			t.Fatalf("%s(%d):\n got %s\nwant %s", name, id, body, exp.Body)
		}
		if !json.Valid(body) {
			t.Fatalf("%s(%d): invalid JSON %s", name, id, body)
		}
	} else if len(body) != 0 {
		t.Fatalf("%s(%d): %d with a body %q appended", name, id, exp.Status, body)
	}
	return exp
}

func statusOf(err error) int {
	if err == nil {
		return 200
	}
	return HTTPStatus(err)
}

func TestQueriesMatchExpectedAnswers(t *testing.T) {
	s, q := freshTrial(t)
	d := s.Dataset
	pool := connect(t, s.URL())
	ctx := context.Background()

	// get-user: every user, and ids just outside the range.
	for id := int64(1); id <= d.Users; id++ {
		a := sameAnswer(t, "AppendUser", id, q.AppendUser, ExpectUser, pool)
		u := d.User(id - 1)
		if want := fmt.Sprintf(`{"id":%d,"name":%q,"email":%q}`, u.ID, u.Name, u.Email); string(a.Body) != want {
			t.Fatalf("user %d: %s, generator says %s", id, a.Body, want)
		}
	}
	sameAnswer(t, "AppendUser", d.Users+1, q.AppendUser, ExpectUser, pool)

	// list-orders: every user; count the orders seen to know the sample covered real lists.
	seen, longest := 0, 0
	for id := int64(1); id <= d.Users; id++ {
		a := sameAnswer(t, "AppendUserOrders", id, q.AppendUserOrders, ExpectUserOrders, pool)
		var list []struct {
			ID         int64  `json:"id"`
			TotalCents int64  `json:"total_cents"`
			CreatedAt  string `json:"created_at"`
		}
		if err := json.Unmarshal(a.Body, &list); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(list); i++ {
			if list[i].CreatedAt > list[i-1].CreatedAt {
				t.Fatalf("user %d: orders not newest first: %s", id, a.Body)
			}
		}
		for _, o := range list {
			g := d.Order(o.ID - 1)
			if g.UserID != id || g.TotalCents != o.TotalCents || FormatTime(g.CreatedAt) != o.CreatedAt {
				t.Fatalf("user %d: order %+v, generator says %+v", id, o, g)
			}
		}
		seen += len(list)
		longest = max(longest, len(list))
	}
	if seen < int(d.Orders)*9/10 || longest != 20 {
		t.Errorf("list-orders showed %d of %d orders, longest list %d: want most of them and a list capped at 20", seen, d.Orders, longest)
	}
	sameAnswer(t, "AppendUserOrders", d.Users+1, q.AppendUserOrders, ExpectUserOrders, pool)

	// A user without orders gets [] (the LATERAL join's NULL row), not 404.
	var lonely int64
	if err := pool.QueryRow(ctx, "INSERT INTO users (name, email) VALUES ('No Orders', 'none@example.com') RETURNING id").Scan(&lonely); err != nil {
		t.Fatal(err)
	}
	if a := sameAnswer(t, "AppendUserOrders", lonely, q.AppendUserOrders, ExpectUserOrders, pool); string(a.Body) != "[]" {
		t.Fatalf("user without orders: %s, want []", a.Body)
	}

	// order-total: every order, against the generator too.
	for id := int64(1); id <= d.Orders; id++ {
		a := sameAnswer(t, "AppendOrderTotal", id, q.AppendOrderTotal, ExpectOrderTotal, pool)
		_, n := d.OrderItems(id - 1)
		if want := fmt.Sprintf(`{"order_id":%d,"items":%d,"total_cents":%d}`, id, n, d.Order(id-1).TotalCents); string(a.Body) != want {
			t.Fatalf("order %d: %s, generator says %s", id, a.Body, want)
		}
	}
	sameAnswer(t, "AppendOrderTotal", d.Orders+1, q.AppendOrderTotal, ExpectOrderTotal, pool)

	// Ids outside 1..2^31-1 are bad input, before any query.
	for _, id := range []int64{0, -1, math.MaxInt32 + 1} {
		if _, err := q.AppendUser(ctx, nil, id); !errors.Is(err, ErrBadInput) {
			t.Errorf("AppendUser(%d): %v, want ErrBadInput", id, err)
		}
		if _, err := q.AppendUserOrders(ctx, nil, id); !errors.Is(err, ErrBadInput) {
			t.Errorf("AppendUserOrders(%d): %v, want ErrBadInput", id, err)
		}
		if _, err := q.AppendOrderTotal(ctx, nil, id); !errors.Is(err, ErrBadInput) {
			t.Errorf("AppendOrderTotal(%d): %v, want ErrBadInput", id, err)
		}
	}
}

func TestCreateOrder(t *testing.T) {
	s, q := freshTrial(t)
	ctx := context.Background()
	pool := connect(t, s.URL())
	countOrders := func() (orders, items int64) {
		t.Helper()
		if err := pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM order_items)").Scan(&orders, &items); err != nil {
			t.Fatal(err)
		}
		return
	}

	req, err := ParseCreateOrder([]byte(`{"user_id":7,"items":[{"sku":"SKU-00042","qty":2,"price_cents":1999},` +
		`{"sku":"odd \"sku\" \\ {x,y}","qty":1,"price_cents":5},{"sku":"SKU-00001","qty":100,"price_cents":100000}],"note":"ignored"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, err := q.AppendCreateOrder(ctx, nil, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckCreatedOrder(ctx, pool, body, req); err != nil {
		t.Fatal(err)
	}
	id := s.Dataset.Orders + 1
	if string(body) != fmt.Sprintf(`{"order_id":%d}`, id) {
		t.Fatalf("first order after a reset: %s, want id %d", body, id)
	}
	// Visible to the read scenarios: the newest of the user's orders, with its total.
	list, err := q.AppendUserOrders(ctx, nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`[{"id":%d,"total_cents":%d,`, id, 2*1999+5+100*100000); !strings.HasPrefix(string(list), want) {
		t.Errorf("list-orders after create: %s, want it to start with %s", list, want)
	}
	total, err := q.AppendOrderTotal(ctx, nil, id)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(`{"order_id":%d,"items":3,"total_cents":%d}`, id, 2*1999+5+100*100000); string(total) != want {
		t.Errorf("order-total after create: %s, want %s", total, want)
	}
	// The checker notices a wrong answer.
	if err := CheckCreatedOrder(ctx, pool, []byte(fmt.Sprintf(`{"order_id":%d}`, id-1)), req); err == nil {
		t.Error("CheckCreatedOrder accepted another order's id")
	}
	if err := CheckCreatedOrder(ctx, pool, []byte(fmt.Sprintf(`{"order_id": %d}`, id)), req); err == nil {
		t.Error("CheckCreatedOrder accepted a body that is not byte-exact")
	}

	orders, items := countOrders()
	// A user that does not exist: 400, nothing written.
	if _, err := q.AppendCreateOrder(ctx, nil, CreateOrder{UserID: s.Dataset.Users + 1000, Items: req.Items}); !errors.Is(err, ErrBadInput) {
		t.Errorf("order for a missing user: %v, want ErrBadInput", err)
	}
	// One transaction: when the database refuses the last item (past validation, a CHECK
	// constraint), the order and the items before it are not written either.
	bad := CreateOrder{UserID: 7, Items: []OrderLine{{SKU: "ok", Qty: 1, PriceCents: 1}, {SKU: strings.Repeat("x", MaxSKULen+1), Qty: 1, PriceCents: 1}}}
	if _, err := q.createOrder(ctx, nil, bad); err == nil || errors.Is(err, ErrBadInput) {
		t.Errorf("database accepted an over-long sku, or called it bad input: %v", err)
	}
	if o2, i2 := countOrders(); o2 != orders || i2 != items {
		t.Errorf("a failed create-order left rows: orders %d -> %d, items %d -> %d", orders, o2, items, i2)
	}
}
