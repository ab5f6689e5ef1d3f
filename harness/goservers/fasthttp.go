package goservers

import (
	"runtime"
	"strconv"

	fastws "github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/scenario"
)

type fastHandler func(ctx *fasthttp.RequestCtx, ps *params)

// newFastHTTP is the fasthttp target: the scenarios and background routes on fasthttp's server,
// written the way a fasthttp user would for speed (no copies of the video, no allocations for
// ping and params); q serves the database routes (nil: 503).
func newFastHTTP(q *db.Queries) *fasthttp.Server {
	video() // built at start-up, as every target does, not on the first request
	r := newRouter[fastHandler]()
	r.handle("GET", "/", fastPing)
	r.handle("GET", "/id/:id", fastParams)
	r.handle("POST", "/json", fastJSON)
	r.handle("GET", "/video", fastVideo)
	r.handle("GET", scenario.WSPath, fastWS)
	for _, rt := range db.Routes {
		r.handle(rt.Method, rt.Path, fastDB(q, rt.Kind))
	}
	for _, br := range scenario.BackgroundRoutes {
		if br.Path == scenario.InfoPath {
			r.handle(br.Method, br.Path, fastInfo)
			continue
		}
		r.handle(br.Method, br.Path, fastBackground)
	}
	return &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			var ps params
			h, ok := r.lookup(ctx.Method(), ctx.Path(), &ps)
			if !ok {
				ctx.Error("not found", fasthttp.StatusNotFound)
				return
			}
			h(ctx, &ps)
		},
		// The other targets send no Server header either; the bytes on the wire stay comparable.
		NoDefaultServerHeader: true,
	}
}

func fastPing(ctx *fasthttp.RequestCtx, _ *params) {
	ctx.SetContentType("text/plain")
	ctx.SetBodyString("hi")
}

func fastParams(ctx *fasthttp.RequestCtx, ps *params) {
	name := ctx.QueryArgs().Peek("name")
	_ = ctx.Request.Header.Peek(scenario.BenchHeader) // read dynamically, not echoed
	ctx.Response.Header.Set("x-powered-by", "benchmark")
	ctx.SetContentType("text/plain")
	b := ctx.Response.BodyWriter()
	b.Write(ps.get(0))
	b.Write([]byte{' '})
	b.Write(name)
}

func fastJSON(ctx *fasthttp.RequestCtx, _ *params) {
	out, err := scenario.MirrorJSON(ctx.PostBody())
	if err != nil {
		ctx.Error("invalid json", fasthttp.StatusBadRequest)
		return
	}
	ctx.SetContentType("application/json")
	ctx.Response.SetBodyRaw(out)
}

// fastVideo hands fasthttp the shared slice without a copy; it is written straight to the
// socket, so the kernel's send buffer paces it (backpressure) and memory does not grow.
func fastVideo(ctx *fasthttp.RequestCtx, _ *params) {
	ctx.SetContentType("video/mp4")
	ctx.Response.SetBodyRaw(video())
}

// fastUpgrader upgrades ws-echo connections: any Origin, as uWebSockets; no compression (the
// default, uws: compression 0).
var fastUpgrader = &fastws.FastHTTPUpgrader{CheckOrigin: func(*fasthttp.RequestCtx) bool { return true }}

// fastWS answers the upgrade; fasthttp then hijacks the connection and runs the echo (ws.go) on
// its own goroutine. A request that is not a valid upgrade gets the upgrader's HTTP error.
func fastWS(ctx *fasthttp.RequestCtx, _ *params) {
	fastUpgrader.Upgrade(ctx, func(c *fastws.Conn) { wsEcho(c) })
}

func fastInfo(ctx *fasthttp.RequestCtx, _ *params) {
	ctx.SetContentType("application/json")
	ctx.SetBody(infoJSON())
}

func fastBackground(ctx *fasthttp.RequestCtx, _ *params) {
	ctx.SetContentType("text/plain")
	ctx.SetBodyString("background")
}

// infoJSON is the info route's body for the Go targets: the Go heap in use, and GOMAXPROCS as
// their thread count (the goroutines serving connections run on that many threads).
func infoJSON() []byte {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b := strconv.AppendUint([]byte(`{"heap_bytes": `), m.HeapInuse, 10)
	b = strconv.AppendInt(append(b, `, "threads": `...), int64(runtime.GOMAXPROCS(0)), 10)
	return append(b, '}')
}
