package main

import (
	"context"

	"github.com/bindrace/bindrace/binding"
	"github.com/bindrace/bindrace/harness/db"
)

// addDBRoutes registers the four database routes (harness/db.Routes). Every handler detaches:
// the loop hands the request to a worker goroutine and goes on serving while the query runs,
// and the worker finishes the response with Send. q nil (no database configured) answers 503.
func addDBRoutes(app *binding.App, q *db.Queries) error {
	w := newDBWorkers(q)
	for _, rt := range db.Routes {
		if err := app.Handle(rt.Method, rt.Path, dbHandler(rt.Kind, w)); err != nil {
			return err
		}
	}
	return nil
}

// querier answers one database route: *db.Queries, or a test's stand-in.
type querier interface {
	Handle(ctx context.Context, dst []byte, k db.RouteKind, id, body []byte) (int, []byte)
}

// dbJob is a detached database request on its way to a worker. It travels by value through
// the workers' channel, so handing a request over allocates nothing (a closure would).
type dbJob struct {
	res   *binding.Response
	kind  db.RouteKind
	id    [16]byte // the :id parameter, copied: request views die when the handler returns
	idLen int
	body  []byte // create-order's body, copied
}

func dbHandler(k db.RouteKind, w *workers[dbJob]) binding.Handler {
	return func(res *binding.Response, r *binding.Request) {
		j := dbJob{kind: k}
		j.idLen = copy(j.id[:], r.Param("id"))
		if len(r.Param("id")) > len(j.id) {
			j.idLen = len(j.id) // longer than any valid id: rejected as such by db.ParseID
		}
		if k == db.RouteCreateOrder {
			j.body = append([]byte(nil), r.Body()...)
		}
		j.res = res.Detach()
		w.run(j)
	}
}

// newDBWorkers answers database jobs from q. Each worker appends the body to a buffer of its
// own, reused from request to request: Send copies it into the core before it returns.
func newDBWorkers(q querier) *workers[dbJob] {
	return newWorkers(func(j dbJob, buf []byte) []byte {
		status, out := q.Handle(context.Background(), buf[:0], j.kind, j.id[:j.idLen], j.body)
		j.res.Status(status)
		if status < 300 {
			j.res.Header("content-type", "application/json")
		} else {
			j.res.Header("content-type", "text/plain")
		}
		j.res.Send(out)
		if cap(out) > db.MaxKeptBody {
			return nil // one huge answer does not pin its buffer to the worker
		}
		return out
	})
}

// workers runs the detached requests' work on goroutines that stay for the next request. A
// fresh goroutine per request starts on the runtime's smallest stack and grows it, copying,
// inside every query: 4% of the server's CPU on get-user (perf, docs/database.md). There are
// never more workers than were once busy together, and run never blocks the loop. do runs one
// job with the worker's scratch buffer and returns the buffer to keep.
type workers[J any] struct {
	do   func(j J, buf []byte) []byte
	idle chan J
}

func newWorkers[J any](do func(j J, buf []byte) []byte) *workers[J] {
	return &workers[J]{do: do, idle: make(chan J)}
}

// run hands j to an idle worker, or starts one when none is waiting.
func (w *workers[J]) run(j J) {
	select {
	case w.idle <- j:
	default:
		go w.work(j)
	}
}

func (w *workers[J]) work(j J) {
	var buf []byte
	for {
		buf = w.do(j, buf)
		j = <-w.idle
	}
}
