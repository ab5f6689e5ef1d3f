package db

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"
)

// load fills the three tables with COPY (pgx CopyFrom: the binary COPY protocol), one
// connection per table, in parallel. Each table is one COPY in id order, so the rows' physical
// order, and with it every clone's layout on disk, is the same on every build of the template.
func load(ctx context.Context, url string, d Dataset) error {
	g, ctx := errgroup.WithContext(ctx)
	copyTable := func(table string, columns []string, rows int64, fill func(i int64, vals []any)) {
		g.Go(func() error {
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				return err
			}
			defer conn.Close(context.Background())
			src := &rowSource{end: rows, vals: make([]any, len(columns)), fill: fill}
			n, err := conn.CopyFrom(ctx, pgx.Identifier{table}, columns, src)
			if err != nil {
				return fmt.Errorf("COPY %s: %w", table, err)
			}
			if n != rows {
				return fmt.Errorf("COPY %s: %d rows, want %d", table, n, rows)
			}
			return nil
		})
	}
	// Largest first, so the longest COPY starts at once.
	copyTable("order_items", []string{"id", "order_id", "sku", "qty", "price_cents"}, d.Items, func(i int64, v []any) {
		it := d.Item(i)
		v[0], v[1], v[2], v[3], v[4] = int32(it.ID), int32(it.OrderID), it.SKU, int32(it.Qty), int32(it.PriceCents)
	})
	copyTable("orders", []string{"id", "user_id", "total_cents", "created_at"}, d.Orders, func(i int64, v []any) {
		o := d.Order(i)
		v[0], v[1], v[2], v[3] = int32(o.ID), int32(o.UserID), int32(o.TotalCents), o.CreatedAt
	})
	copyTable("users", []string{"id", "name", "email"}, d.Users, func(i int64, v []any) {
		u := d.User(i)
		v[0], v[1], v[2] = int32(u.ID), u.Name, u.Email
	})
	return g.Wait()
}

// rowSource is a pgx.CopyFromSource over generated rows 0..end-1. CopyFrom encodes each row
// before asking for the next, so one values slice is reused.
type rowSource struct {
	next, end int64
	vals      []any
	fill      func(i int64, vals []any)
}

func (s *rowSource) Next() bool {
	if s.next >= s.end {
		return false
	}
	s.fill(s.next, s.vals)
	s.next++
	return true
}

func (s *rowSource) Values() ([]any, error) { return s.vals, nil }

func (s *rowSource) Err() error { return nil }
