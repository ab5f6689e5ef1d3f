package goservers

import (
	"context"
	"net/http"
	"sync"

	"github.com/valyala/fasthttp"

	"github.com/bindrace/bindrace/harness/db"
)

// The database routes (harness/db.Routes) on the Go targets. Both servers run a handler on the
// connection's goroutine, so the query blocks that goroutine only, not the server. q nil (the
// server was started without a database) answers 503. The body is built in a pooled buffer and
// copied into the server's own (fasthttp's SetBody, net/http's bufio.Writer), as binding-server's
// workers build it in a buffer each and Send copies it to the core: no target allocates a body
// per request.

var bodyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// putBody gives a body buffer back to the pool once its bytes are copied, unless it outgrew
// db.MaxKeptBody.
func putBody(bp *[]byte, out []byte) {
	if cap(out) <= db.MaxKeptBody {
		*bp = out[:0]
		bodyBufs.Put(bp)
	}
}

func fastDB(q *db.Queries, k db.RouteKind) fastHandler {
	return func(ctx *fasthttp.RequestCtx, ps *params) {
		var body []byte
		if k == db.RouteCreateOrder {
			body = ctx.PostBody()
		}
		bp := bodyBufs.Get().(*[]byte)
		status, out := q.Handle(context.Background(), (*bp)[:0], k, ps.get(0), body)
		ctx.SetStatusCode(status)
		if status < 300 {
			ctx.SetContentType("application/json")
		} else {
			ctx.SetContentType("text/plain")
		}
		ctx.SetBody(out)
		putBody(bp, out)
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
		bp := bodyBufs.Get().(*[]byte)
		status, out := q.Handle(r.Context(), (*bp)[:0], k, []byte(r.PathValue("id")), body)
		if status < 300 {
			w.Header()["Content-Type"] = appJSON
		} else {
			w.Header()["Content-Type"] = textPlain
		}
		w.WriteHeader(status)
		w.Write(out)
		putBody(bp, out)
	}
}
