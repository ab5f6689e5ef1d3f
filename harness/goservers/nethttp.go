package goservers

import (
	"io"
	"net/http"
	"strconv"

	"github.com/gorilla/websocket"

	"github.com/bindrace/bindrace/harness/db"
	"github.com/bindrace/bindrace/harness/scenario"
)

// Header values shared by every response; net/http only reads them.
var (
	textPlain   = []string{"text/plain"}
	appJSON     = []string{"application/json"}
	videoMP4    = []string{"video/mp4"}
	benchmark   = []string{"benchmark"}
	videoLength = []string{strconv.Itoa(scenario.VideoSize)}
)

// newNetHTTP is the nethttp target: the scenarios and background routes on the standard
// library's ServeMux with Go 1.22 patterns; q serves the database routes (nil: 503).
func newNetHTTP(q *db.Queries) *http.Server {
	video() // built at start-up, as every target does, not on the first request
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = textPlain
		w.Write([]byte("hi"))
	})
	mux.HandleFunc("GET /id/{id}", func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("id")
		name := r.URL.Query().Get("name")
		_ = r.Header.Get(scenario.BenchHeader) // read dynamically, not echoed
		h := w.Header()
		h["Content-Type"] = textPlain
		h["X-Powered-By"] = benchmark
		w.Write([]byte(id + " " + name))
	})
	mux.HandleFunc("POST /json", func(w http.ResponseWriter, r *http.Request) {
		body, err := readBody(w, r)
		if err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		out, err := scenario.MirrorJSON(body)
		if err != nil {
			http.Error(w, "invalid json", http.StatusBadRequest)
			return
		}
		w.Header()["Content-Type"] = appJSON
		w.Write(out)
	})
	// One Write of the shared slice: net/http passes it to the socket, which blocks while the
	// client is slow (backpressure) and never copies the 14 MB.
	mux.HandleFunc("GET /video", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = videoMP4
		h["Content-Length"] = videoLength
		w.Write(video())
	})
	// ws-echo: upgrade and echo (ws.go). Any Origin, as uWebSockets; no compression (gorilla's
	// default, uws: compression 0).
	up := &websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	mux.HandleFunc("GET "+scenario.WSPath, func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil) // on failure it has answered with an HTTP error
		if err != nil {
			return
		}
		wsEcho(c)
	})
	for _, rt := range db.Routes {
		mux.HandleFunc(scenario.Route{Method: rt.Method, Path: rt.Path}.MuxPattern(), netDB(q, rt.Kind))
	}
	for _, br := range scenario.BackgroundRoutes {
		pat := br.MuxPattern()
		if br.Path == scenario.InfoPath {
			mux.HandleFunc(pat, func(w http.ResponseWriter, r *http.Request) {
				w.Header()["Content-Type"] = appJSON
				w.Write(infoJSON())
			})
			continue
		}
		mux.HandleFunc(pat, func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = textPlain
			w.Write([]byte("background"))
		})
	}
	return &http.Server{Handler: mux}
}

// readBody reads a request body of at most 1 MiB, sized by Content-Length when it is known.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	const limit = 1 << 20
	if r.ContentLength >= 0 && r.ContentLength <= limit {
		buf := make([]byte, r.ContentLength)
		_, err := io.ReadFull(r.Body, buf)
		return buf, err
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}
