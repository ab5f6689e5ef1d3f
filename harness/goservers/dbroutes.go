package goservers

import (
	"context"
	"net/http"

	"github.com/valyala/fasthttp"

	"github.com/bindrace/bindrace/harness/db"
)

// The database routes (harness/db.Routes) on the Go targets. Both servers run a handler on the
// connection's goroutine, so the query blocks that goroutine only, not the server. q nil (the
// server was started without a database) answers 503.

func fastDB(q *db.Queries, k db.RouteKind) fastHandler {
	return func(ctx *fasthttp.RequestCtx, ps *params) {
		var body []byte
		if k == db.RouteCreateOrder {
			body = ctx.PostBody()
		}
		status, out := q.Handle(context.Background(), nil, k, ps.get(0), body)
		ctx.SetStatusCode(status)
		if status < 300 {
			ctx.SetContentType("application/json")
		} else {
			ctx.SetContentType("text/plain")
		}
		ctx.Response.SetBodyRaw(out)
	}
}

func netDB(q *db.Queries, k db.RouteKind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if k == db.RouteCreateOrder {
			var err error
			if body, err = readBody(w, r); err != nil {
				http.Error(w, "bad body", http.StatusBadRequest)
				return
			}
		}
		status, out := q.Handle(r.Context(), nil, k, []byte(r.PathValue("id")), body)
		if status < 300 {
			w.Header()["Content-Type"] = appJSON
		} else {
			w.Header()["Content-Type"] = textPlain
		}
		w.WriteHeader(status)
		w.Write(out)
	}
}
