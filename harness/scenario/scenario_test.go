package scenario

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestRequestParsesAsHTTP(t *testing.T) {
	for _, s := range All() {
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(s.Request("127.0.0.1:3000"))))
		if err != nil {
			t.Fatalf("%s: request does not parse: %v", s.Name, err)
		}
		if req.Method != s.Method || req.URL.RequestURI() != s.Path || req.Host != "127.0.0.1:3000" {
			t.Errorf("%s: got %s %s host %s", s.Name, req.Method, req.URL.RequestURI(), req.Host)
		}
		body, _ := io.ReadAll(req.Body)
		if !bytes.Equal(body, s.Body) {
			t.Errorf("%s: body %q, want %q", s.Name, body, s.Body)
		}
		for _, h := range s.Header {
			if req.Header.Get(h[0]) != h[1] {
				t.Errorf("%s: header %s = %q, want %q", s.Name, h[0], req.Header.Get(h[0]), h[1])
			}
		}
	}
}

func TestByNameUnknownListsKnown(t *testing.T) {
	if _, err := ByName("pong"); err == nil || !strings.Contains(err.Error(), "ping") {
		t.Fatalf("want an error listing the known names, got %v", err)
	}
	if s, err := ByName("params"); err != nil || s.Want.Header["x-powered-by"] != "benchmark" {
		t.Fatalf("params: %v %+v", err, s.Want)
	}
}

func TestMirrorJSONReserializes(t *testing.T) {
	out, err := MirrorJSON([]byte(`{ "hello" :  "world" }`))
	if err != nil || string(out) != `{"hello":"world"}` {
		t.Fatalf("got %q, %v: want the body parsed and serialized again, not echoed", out, err)
	}
	if _, err := MirrorJSON([]byte(`{"hello":`)); err == nil {
		t.Fatal("truncated JSON must be an error")
	}
}

func TestVideoIsDeterministic(t *testing.T) {
	v := Video()
	if len(v) != VideoSize {
		t.Fatalf("len %d, want %d", len(v), VideoSize)
	}
	for _, i := range []int{0, 1, 4092, 4093, 4094, VideoSize - 1} {
		if v[i] != VideoByte(i) {
			t.Fatalf("byte %d = %d, want %d", i, v[i], VideoByte(i))
		}
	}
	sum := sha256.Sum256(v)
	if hex.EncodeToString(sum[:]) != VideoSHA256() {
		t.Fatal("VideoSHA256 does not match the bytes")
	}
	// A short repeating block would let a broken server pass by accident.
	if bytes.Equal(v[:4096], v[4096:8192]) {
		t.Fatal("video repeats every 4 KiB")
	}
}

func TestBackgroundRoutesAreDistinct(t *testing.T) {
	seen := map[Route]bool{}
	for _, r := range BackgroundRoutes {
		if seen[r] {
			t.Fatalf("duplicate background route %v", r)
		}
		seen[r] = true
		if r.Path == "/" || r.Path == "/json" || r.Path == "/video" || r.Path == "/id/:id" || r.Path == WSPath {
			t.Fatalf("background route %v shadows a scenario", r)
		}
	}
	if len(BackgroundRoutes) < 18 {
		t.Fatalf("%d background routes, want about 20", len(BackgroundRoutes))
	}
}

func TestKinds(t *testing.T) {
	if got, want := Names(), []string{"ping", "params", "json", "stream", "ws-echo"}; !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, s := range HTTP() {
		if s.Kind != KindHTTP || s.WebSocket() {
			t.Errorf("HTTP() returned %s of kind %s", s.Name, s.Kind)
		}
	}
	if n := len(HTTP()); n != len(All())-1 {
		t.Errorf("HTTP() has %d scenarios, want every one but ws-echo (%d)", n, len(All())-1)
	}
	ws, err := ByName("ws-echo")
	if err != nil {
		t.Fatal(err)
	}
	if !ws.WebSocket() || ws.Kind.String() != "websocket" || ws.Path != WSPath || ws.Method != "GET" {
		t.Errorf("ws-echo = %+v", ws)
	}
	if len(ws.Body) != WSMessageSize || !bytes.Equal(ws.Body, WSPayload(WSMessageSize)) || !bytes.Equal(ws.Want.Body, ws.Body) {
		t.Errorf("ws-echo message %x, echo %x", ws.Body, ws.Want.Body)
	}
	if _, err := ByName("ws"); err == nil || !strings.Contains(err.Error(), "ws-echo") || !strings.Contains(err.Error(), "stream") {
		t.Errorf("unknown name error should list HTTP and WebSocket names: %v", err)
	}
	// A literal that does not say (harness/load builds one for a bare URL) is HTTP.
	if (Scenario{Name: "url", Method: "GET", Path: "/"}).WebSocket() {
		t.Error("the zero Kind must be HTTP")
	}
}

func TestWSHandshakeIsValid(t *testing.T) {
	ws, _ := ByName("ws-echo")
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(ws.Request("127.0.0.1:3000"))))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.EqualFold(req.Header.Get("Upgrade"), "websocket") || req.Header.Get("Sec-WebSocket-Version") != "13" {
		t.Errorf("not an upgrade request: %v", req.Header)
	}
	sum := sha1.Sum([]byte(req.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if got := base64.StdEncoding.EncodeToString(sum[:]); got != ws.Want.Header["sec-websocket-accept"] {
		t.Errorf("accept %q, want %q for the key sent", ws.Want.Header["sec-websocket-accept"], got)
	}
}

func TestWSPayloadIsDeterministic(t *testing.T) {
	a, b := WSPayload(WSMessageSize), WSPayload(WSMessageSize)
	if !bytes.Equal(a, b) || &a[0] == &b[0] {
		t.Fatal("WSPayload must return equal, fresh slices")
	}
	long := WSPayload(4096)
	if !bytes.Equal(long[:WSMessageSize], a) {
		t.Error("a longer payload must start with the scenario's message")
	}
	seen := map[byte]bool{}
	for i := range 256 {
		if seen[long[i]] {
			t.Fatalf("byte %d repeats within the first 256", i)
		}
		seen[long[i]] = true
		if long[i] != WSPayloadByte(i) {
			t.Fatalf("byte %d = %d, want %d", i, long[i], WSPayloadByte(i))
		}
	}
	if bytes.Equal(long[:256], long[256:512]) {
		t.Error("payload repeats every 256 bytes")
	}
}

func TestMuxPattern(t *testing.T) {
	for in, want := range map[string]string{
		"/api/v1/users/:id":  "GET /api/v1/users/{id}",
		"/static/*":          "GET /static/{rest...}",
		"/v/:version/docs/*": "GET /v/{version}/docs/{rest...}",
		"/__bindrace/info":   "GET /__bindrace/info",
	} {
		if got := (Route{"GET", in}).MuxPattern(); got != want {
			t.Errorf("MuxPattern(%q) = %q, want %q", in, got, want)
		}
	}
}
