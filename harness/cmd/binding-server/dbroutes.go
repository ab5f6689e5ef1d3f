package main

import (
	"context"

	"github.com/bindrace/bindrace/binding"
	"github.com/bindrace/bindrace/harness/db"
)

// addDBRoutes registers the four database routes (harness/db.Routes). Every handler detaches:
// the loop hands the request to a goroutine and goes on serving while the query runs, and the
// goroutine finishes the response with End. q nil (no database configured) answers 503.
func addDBRoutes(app *binding.App, q *db.Queries) error {
	for _, rt := range db.Routes {
		if err := app.Handle(rt.Method, rt.Path, dbHandler(q, rt.Kind)); err != nil {
			return err
		}
	}
	return nil
}

func dbHandler(q *db.Queries, k db.RouteKind) binding.Handler {
	return func(w *binding.Response, r *binding.Request) {
		// Request views die when the handler returns: copy what the goroutine reads.
		var id [16]byte
		n := copy(id[:], r.Param("id"))
		if len(r.Param("id")) > len(id) {
			n = len(id) // longer than any valid id: rejected as such by db.ParseID
		}
		var body []byte
		if k == db.RouteCreateOrder {
			body = append([]byte(nil), r.Body()...)
		}
		later := w.Detach()
		go func() {
			status, out := q.Handle(context.Background(), nil, k, id[:n], body)
			later.Status(status)
			if status < 300 {
				later.Header("content-type", "application/json")
			} else {
				later.Header("content-type", "text/plain")
			}
			later.Write(out)
			later.End()
		}()
	}
}
