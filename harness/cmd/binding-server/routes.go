package main

import (
	"encoding/json"
	"runtime"

	"github.com/bindrace/bindrace/binding"
	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/scenario"
)

// newApp registers every scenario route and the background routes; threads is the loop count
// the info route reports; q serves the database routes (nil: they answer 503).
func newApp(cfg binding.Config, static bool, threads int, q *db.Queries) (*binding.App, error) {
	app := binding.New(cfg)
	video := binding.NewBodyFunc(scenario.VideoSize, scenario.FillVideo)
	if static {
		if err := app.Static("GET", "/", 200, "text/plain", []byte("hi")); err != nil {
			return nil, err
		}
		if err := app.StaticBody("GET", "/video", 200, "video/mp4", video); err != nil {
			return nil, err
		}
	} else {
		app.Get("/", ping)
		app.Get("/video", func(w *binding.Response, r *binding.Request) {
			w.Header("content-type", "video/mp4")
			w.SendBody(video)
		})
	}
	wsCfg := binding.WSConfig{MaxMessage: scenario.WSMaxMessage}
	if static {
		if err := app.StaticWebSocketEcho(scenario.WSPath, wsCfg); err != nil {
			return nil, err
		}
	} else if err := app.WebSocket(scenario.WSPath, binding.WSHandler{Message: wsEcho}, wsCfg); err != nil {
		return nil, err
	}
	app.Get("/id/:id", params)
	app.Post("/json", mirrorJSON)
	if !static { // binding-static is the C++-only build of the fixed scenarios: no database
		if err := addDBRoutes(app, q); err != nil {
			return nil, err
		}
	}
	for _, rt := range scenario.BackgroundRoutes {
		h := background
		if rt.Path == scenario.InfoPath {
			h = info(app, threads)
		}
		if err := app.Handle(rt.Method, rt.Path, h); err != nil {
			return nil, err
		}
	}
	return app, nil
}

// wsEcho sends every message back with its opcode (ws-echo); Send copies msg before returning.
func wsEcho(ws *binding.WS, msg []byte, binary bool) { ws.Send(msg, binary) }

func ping(w *binding.Response, r *binding.Request) {
	regress(r)
	w.Header("content-type", "text/plain")
	w.WriteString("hi")
}

// params reads the id, the query and a request header dynamically (the header is not echoed).
func params(w *binding.Response, r *binding.Request) {
	w.Header("content-type", "text/plain")
	w.Header("x-powered-by", "benchmark")
	if len(r.Header(scenario.BenchHeader)) == 0 {
		w.Header("x-bench-missing", "1")
	}
	w.Write(r.Param("id"))
	w.WriteString(" ")
	w.Write(r.Query("name"))
}

func mirrorJSON(w *binding.Response, r *binding.Request) {
	out, err := scenario.MirrorJSON(r.Body())
	if err != nil {
		w.Status(400)
		w.Header("content-type", "text/plain")
		w.WriteString(err.Error())
		return
	}
	w.Header("content-type", "application/json")
	w.Write(out)
}

// info answers scenario.InfoPath: the Go heap in use, the event loops serving, and the loops'
// running totals (binding.Stats), which the harness reads before and after a window.
func info(app *binding.App, threads int) binding.Handler {
	return func(w *binding.Response, r *binding.Request) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		out, _ := json.Marshal(struct {
			HeapBytes uint64        `json:"heap_bytes"`
			Threads   int           `json:"threads"`
			Counters  binding.Stats `json:"counters"`
		}{ms.HeapInuse, threads, app.Stats()})
		w.Header("content-type", "application/json")
		w.Write(out)
	}
}

func background(w *binding.Response, r *binding.Request) {
	w.Header("content-type", "text/plain")
	w.WriteString("ok")
}
