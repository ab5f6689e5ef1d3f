//go:build long

// Long test tier: queries pipelined on their lanes, against the shared test cluster.

package db

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// Queries waiting on a lane go out as one pipeline, and each gets its own answer.
func TestPipelineSendsQueuedQueriesTogether(t *testing.T) {
	s, q := freshTrialPool(t, 1)
	ref := connect(t, s.URL())
	ctx := context.Background()
	const n = 20
	want := make([]Answer, n)
	for i := range want {
		a, err := ExpectUser(ctx, ref, int64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		want[i] = a
	}

	// Hold the lane as a leader would, queue n queries behind it, then hand the lead to the
	// first: it must send all n in one pipeline.
	ln := &q.lanes[0]
	ln.mu.Lock()
	ln.busy = true
	ln.mu.Unlock()
	p0, q0 := q.Pipelined()
	got := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = q.AppendUser(ctx, nil, int64(i+1))
		}()
	}
	for deadline := time.Now().Add(10 * time.Second); ln.load.Load() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d queries queued", ln.load.Load(), n)
		}
	}
	ln.mu.Lock()
	first := ln.queue[0]
	ln.mu.Unlock()
	first.lead = true
	first.done <- struct{}{}
	wg.Wait()

	for i := range n {
		if errs[i] != nil || !bytes.Equal(got[i], want[i].Body) {
			t.Errorf("user %d: %s, %v; want %s", i+1, got[i], errs[i], want[i].Body)
		}
	}
	p1, q1 := q.Pipelined()
	if p1-p0 != 1 || q1-q0 != n {
		t.Errorf("%d queries went out in %d pipelines carrying %d; want 1 pipeline of %d", n, p1-p0, q1-q0, n)
	}
	if ln.busy || ln.load.Load() != 0 || len(ln.queue) != 0 {
		t.Errorf("lane not idle after the pipeline: busy %v, load %d, queued %d", ln.busy, ln.load.Load(), len(ln.queue))
	}
}

// Under load from more callers than connections, a query the database refuses fails alone:
// the queries pipelined before and after it on its connection get their own answers, and
// nothing the refused ones tried to write is left.
func TestPipelineKeepsErrorsToTheirQuery(t *testing.T) {
	s, q := freshTrialPool(t, 2)
	ref := connect(t, s.URL())
	ctx := context.Background()
	d := s.Dataset
	var orders0 int64
	if err := ref.QueryRow(ctx, "SELECT count(*) FROM orders").Scan(&orders0); err != nil {
		t.Fatal(err)
	}

	const callers, rounds = 40, 10
	missing := CreateOrder{UserID: d.Users + 1000, Items: []OrderLine{{SKU: "x", Qty: 1, PriceCents: 1}}}
	tooLong := CreateOrder{UserID: 1, Items: []OrderLine{{SKU: "ok", Qty: 1, PriceCents: 1}, {SKU: string(bytes.Repeat([]byte("x"), MaxSKULen+1)), Qty: 1, PriceCents: 1}}}
	good := CreateOrder{UserID: 2, Items: []OrderLine{{SKU: "SKU-00001", Qty: 2, PriceCents: 300}}}
	var created sync.Map // order ids, each must be new
	errc := make(chan error, callers*rounds)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				id := int64((c*rounds+r)%int(d.Users)) + 1
				var err error
				switch (c + r) % 4 {
				case 0:
					_, err = q.AppendCreateOrder(ctx, nil, missing)
					if !errors.Is(err, ErrBadInput) {
						err = fmt.Errorf("order for a missing user: %v, want ErrBadInput", err)
					} else {
						err = nil
					}
				case 1:
					_, err = q.createOrder(ctx, nil, tooLong)
					if err == nil || errors.Is(err, ErrBadInput) {
						err = fmt.Errorf("an over-long sku: %v, want the database's refusal", err)
					} else {
						err = nil
					}
				case 2:
					var body []byte
					if body, err = q.AppendCreateOrder(ctx, nil, good); err == nil {
						if _, dup := created.LoadOrStore(string(body), true); dup {
							err = fmt.Errorf("order %s created twice", body)
						}
					}
				default:
					var body []byte
					body, err = q.AppendUser(ctx, nil, id)
					if err == nil && !bytes.Contains(body, []byte(fmt.Sprintf(`{"id":%d,`, id))) {
						err = fmt.Errorf("user %d answered with %s", id, body)
					}
				}
				if err != nil {
					errc <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	pipelines, queries := q.Pipelined()
	if pipelines >= queries {
		t.Errorf("%d queries in %d pipelines: %d callers over 2 connections never shared one", queries, pipelines, callers)
	}
	t.Logf("%d queries in %d pipelines", queries, pipelines)

	n := 0
	created.Range(func(any, any) bool { n++; return true })
	var orders int64
	if err := ref.QueryRow(ctx, "SELECT count(*) FROM orders").Scan(&orders); err != nil {
		t.Fatal(err)
	}
	if orders != orders0+int64(n) || n != callers*rounds/4 {
		t.Errorf("orders %d -> %d with %d created (want %d): a refused order left rows, or a good one was lost", orders0, orders, n, callers*rounds/4)
	}
}

// A connection the database ends fails the queries on it, and the lane opens another.
func TestPipelineReopensAnEndedConnection(t *testing.T) {
	s, q := freshTrialPool(t, 1)
	ref := connect(t, s.URL())
	ctx := context.Background()
	if _, err := q.AppendUser(ctx, nil, 1); err != nil {
		t.Fatal(err)
	}
	var ended bool
	if err := ref.QueryRow(ctx, "SELECT bool_and(pg_terminate_backend(pid)) FROM pg_stat_activity "+
		"WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'").Scan(&ended); err != nil || !ended {
		t.Fatalf("ending the lane's connection: %v, %v", ended, err)
	}
	// The backend exits on the signal, soon after: wait for it, so the next query finds it gone.
	const others = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() " +
		"AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var n int
		if err := ref.QueryRow(ctx, others).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ended backend is still there after 5 s")
		}
	}
	failed := 0
	for i := 0; ; i++ {
		body, err := q.AppendUser(ctx, nil, 1)
		if err == nil {
			if !bytes.HasPrefix(body, []byte(`{"id":1,`)) {
				t.Fatalf("after reopening: %s", body)
			}
			break
		}
		failed++
		if i == 2 {
			t.Fatalf("still failing after %d queries: %v", failed, err)
		}
	}
	if failed != 1 {
		t.Errorf("%d queries failed on the ended connection; want the one that found it ended", failed)
	}
}
