package main

import (
	"context"

	"github.com/bindrace/bindrace/binding"
	"github.com/bindrace/bindrace/harness/db"
)

// addDBRoutes registers the four database routes (harness/db.Routes). Every handler detaches:
// the loop hands the request to a worker goroutine and goes on serving while the query runs,
// and the worker finishes the response with End. q nil (no database configured) answers 503.
func addDBRoutes(app *binding.App, q *db.Queries) error {
	w := newWorkers()
	for _, rt := range db.Routes {
		if err := app.Handle(rt.Method, rt.Path, dbHandler(q, rt.Kind, w)); err != nil {
			return err
		}
	}
	return nil
}

// querier answers one database route: *db.Queries, or a test's stand-in.
type querier interface {
	Handle(ctx context.Context, dst []byte, k db.RouteKind, id, body []byte) (int, []byte)
}

func dbHandler(q querier, k db.RouteKind, w *workers) binding.Handler {
	return func(res *binding.Response, r *binding.Request) {
		// Request views die when the handler returns: copy what the worker reads.
		var id [16]byte
		n := copy(id[:], r.Param("id"))
		if len(r.Param("id")) > len(id) {
			n = len(id) // longer than any valid id: rejected as such by db.ParseID
		}
		var body []byte
		if k == db.RouteCreateOrder {
			body = append([]byte(nil), r.Body()...)
		}
		later := res.Detach()
		w.run(func() {
			status, out := q.Handle(context.Background(), nil, k, id[:n], body)
			later.Status(status)
			if status < 300 {
				later.Header("content-type", "application/json")
			} else {
				later.Header("content-type", "text/plain")
			}
			later.Write(out)
			later.End()
		})
	}
}

// workers runs the detached requests' work on goroutines that stay for the next request. A
// fresh goroutine per request starts on the runtime's smallest stack and grows it, copying,
// inside every query: 4% of the server's CPU on get-user (perf, docs/database.md). There are
// never more workers than were once busy together, and run never blocks the loop.
type workers struct {
	idle chan func()
}

func newWorkers() *workers { return &workers{idle: make(chan func())} }

// run hands f to an idle worker, or starts one when none is waiting.
func (w *workers) run(f func()) {
	select {
	case w.idle <- f:
	default:
		go w.work(f)
	}
}

func (w *workers) work(f func()) {
	for {
		f()
		f = <-w.idle
	}
}
