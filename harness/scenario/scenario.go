// Package scenario defines the workloads every target serves identically: the request each
// scenario sends, the response it must get back, and the routes registered but never requested.
//
// It is the single source of truth shared by the scenario servers (binding, fasthttp, nethttp,
// uws), the verifier and the load generator.
package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Kind says what a scenario exercises. The zero value is KindHTTP, so a Scenario literal that
// does not say is an HTTP request scenario.
type Kind int

const (
	// KindHTTP: one HTTP/1.1 request, one response (Method, Path, Header, Body; Want).
	KindHTTP Kind = iota
	// KindWebSocket: an upgrade at Path (Method, Header: the handshake Request renders), then
	// messages: Body is the message the client sends (binary) and Want.Body what must come back.
	// Throughput counts messages, not HTTP responses.
	KindWebSocket
)

func (k Kind) String() string {
	switch k {
	case KindHTTP:
		return "http"
	case KindWebSocket:
		return "websocket"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Scenario is one request shape and the response it must produce.
type Scenario struct {
	Name   string
	Kind   Kind
	Method string
	Path   string // path and query, as sent on the request line
	Header [][2]string
	Body   []byte
	Want   Want
	// Database names the table whose ids fill IDPlaceholder (KeyUsers, KeyOrders) in a
	// database scenario (db.go); "" for every other scenario.
	Database string
	// Writes marks a database scenario that changes the data: each of its runs needs a fresh
	// copy of its own, so its servers run one at a time. The others only read, and the two
	// servers of a pair may share one copy, reset before the pair.
	Writes bool
}

// WebSocket reports a WebSocket scenario (see KindWebSocket).
func (s Scenario) WebSocket() bool { return s.Kind == KindWebSocket }

// Want is what a correct response looks like.
type Want struct {
	Status      int
	ContentType string            // compared by media type (parameters such as charset ignored)
	Header      map[string]string // further required headers, names in lower case
	Body        []byte            // exact body, unless JSON or BodySHA256 is set
	JSON        bool              // compare Body as JSON values, not bytes
	BodyLen     int               // for large bodies: exact length ...
	BodySHA256  string            // ... and hash, hex
}

// InfoPath is the background route every target answers with {"heap_bytes": N, "threads": T}:
// its heap in use (Go heap, or V8's heapUsed summed over its isolates) and the threads it serves
// with (event loops, GOMAXPROCS, or uWebSockets.js apps), so a race can check both sides got
// the same. The harness reads it outside measurement windows only.
const InfoPath = "/__bindrace/info"

// Route is a method and path pattern (":name" segments, trailing "*").
type Route struct{ Method, Path string }

// MuxPattern is the route as Go 1.22's http.ServeMux takes it: ":name" segments as "{name}", a
// trailing "*" as "{rest...}", after the method.
func (r Route) MuxPattern() string {
	segs := strings.Split(r.Path, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, ":"):
			segs[i] = "{" + s[1:] + "}"
		case s == "*" && i == len(segs)-1:
			segs[i] = "{rest...}"
		}
	}
	return r.Method + " " + strings.Join(segs, "/")
}

// BackgroundRoutes are registered by every target and never requested during a measurement,
// so a router that slows down with more routes shows it (seed 000 used about 20).
var BackgroundRoutes = []Route{
	{"GET", "/api/v1/users"},
	{"GET", "/api/v1/users/:id"},
	{"POST", "/api/v1/users"},
	{"PUT", "/api/v1/users/:id"},
	{"DELETE", "/api/v1/users/:id"},
	{"GET", "/api/v1/users/:id/posts"},
	{"GET", "/api/v1/posts/:post/comments/:comment"},
	{"GET", "/api/v1/search"},
	{"GET", "/static/*"},
	{"GET", "/health"},
	{"GET", "/metrics"},
	{"GET", "/about"},
	{"GET", "/contact"},
	{"POST", "/login"},
	{"POST", "/logout"},
	{"GET", "/id/:id/profile"},
	{"GET", "/json/schema"},
	{"PATCH", "/api/v1/settings"},
	{"GET", "/v/:version/docs/*"},
	{"GET", InfoPath},
}

// Bench header: the params scenario sends it and servers read it dynamically (not echoed),
// as the original benchmark's "params, query & header" case does.
const BenchHeader = "x-bench"

const jsonBody = `{"hello":"world"}`

// VideoSize is the length of the stream scenario's body: about 14 MB, like a short clip.
const VideoSize = 14 << 20

// The ws-echo scenario: WebSocket upgrades at WSPath; every message is echoed back with the
// same opcode. The load generator sends WSMessageSize-byte binary messages of WSPayload.
const (
	WSPath        = "/ws"
	WSMessageSize = 64
	// WSMaxMessage is the largest message every target accepts; a larger one is refused with
	// close 1009 (message too big) on the Go targets, as RFC 6455 section 7.4.1 names it.
	WSMaxMessage = 16 << 20
)

// wsKey is RFC 6455's sample nonce (section 1.3) and wsAccept its documented accept value:
// a fixed handshake, so Request renders the same bytes every time.
const (
	wsKey    = "dGhlIHNhbXBsZSBub25jZQ=="
	wsAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="
)

// all is built on first use: the stream scenario's hash costs a pass over 14 MB, which a
// server that merely imports this package should not pay at start-up.
var all = sync.OnceValue(func() []Scenario {
	return []Scenario{
		{
			Name: "ping", Method: "GET", Path: "/",
			Want: Want{Status: 200, ContentType: "text/plain", Body: []byte("hi")},
		},
		{
			Name: "params", Method: "GET", Path: "/id/1?name=bun",
			Header: [][2]string{{BenchHeader, "1"}},
			Want: Want{Status: 200, ContentType: "text/plain", Body: []byte("1 bun"),
				Header: map[string]string{"x-powered-by": "benchmark"}},
		},
		{
			Name: "json", Method: "POST", Path: "/json",
			Header: [][2]string{{"content-type", "application/json"}},
			Body:   []byte(jsonBody),
			Want:   Want{Status: 200, ContentType: "application/json", Body: []byte(jsonBody), JSON: true},
		},
		{
			Name: "stream", Method: "GET", Path: "/video",
			Header: [][2]string{{"if-none-match", `"bindrace-never-matches"`}, {"cache-control", "no-store"}},
			Want:   Want{Status: 200, ContentType: "video/mp4", BodyLen: VideoSize, BodySHA256: VideoSHA256()},
		},
		{
			Name: "ws-echo", Kind: KindWebSocket, Method: "GET", Path: WSPath,
			Header: [][2]string{
				{"upgrade", "websocket"}, {"connection", "Upgrade"},
				{"sec-websocket-key", wsKey}, {"sec-websocket-version", "13"},
			},
			Body: WSPayload(WSMessageSize),
			Want: Want{Status: 101, Body: WSPayload(WSMessageSize),
				Header: map[string]string{"upgrade": "websocket", "sec-websocket-accept": wsAccept}},
		},
	}
})

// All lists every scenario, HTTP and WebSocket, in their canonical order.
func All() []Scenario { return append([]Scenario(nil), all()...) }

// HTTP lists the HTTP request scenarios (KindHTTP) in their canonical order.
func HTTP() []Scenario {
	var out []Scenario
	for _, s := range all() {
		if s.Kind == KindHTTP {
			out = append(out, s)
		}
	}
	return out
}

// Names lists every scenario name, HTTP and WebSocket.
func Names() []string {
	names := make([]string, 0, len(all()))
	for _, s := range all() {
		names = append(names, s.Name)
	}
	return names
}

// ByName finds a scenario or says which names exist.
func ByName(name string) (Scenario, error) {
	for _, s := range append(all(), dbScenarios...) {
		if s.Name == name {
			return s, nil
		}
	}
	known := append(Names(), DBNames()...)
	sort.Strings(known)
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %s)", name, strings.Join(known, ", "))
}

// Request renders the scenario as one HTTP/1.1 keep-alive request for host; for a WebSocket
// scenario that is its upgrade request (a fixed Sec-WebSocket-Key), no message.
func (s Scenario) Request(host string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", s.Method, s.Path, host)
	for _, h := range s.Header {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	if s.Body != nil {
		fmt.Fprintf(&b, "content-length: %d\r\n", len(s.Body))
	}
	b.WriteString("\r\n")
	b.Write(s.Body)
	return b.Bytes()
}

// WSPayloadByte is byte i of a ws-echo message: every one of the first 256 bytes differs (odd
// multiplier), and the i/256 term keeps longer payloads from repeating every 256 bytes, so a
// shifted, truncated or partly rewritten echo cannot pass.
func WSPayloadByte(i int) byte { return byte(i*37 + 11 + i/256) }

// WSPayload returns a new n-byte ws-echo message: WSPayloadByte(0) … WSPayloadByte(n-1).
// The scenario's message is WSPayload(WSMessageSize).
func WSPayload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = WSPayloadByte(i)
	}
	return b
}

// MirrorJSON is the json scenario's handler logic shared by the Go targets: the body is parsed
// and serialized again, so a server that echoes bytes does less work than the scenario asks.
func MirrorJSON(body []byte) ([]byte, error) {
	var v map[string]any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
