package scenario

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestRequestParsesAsHTTP(t *testing.T) {
	for _, s := range HTTP() {
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
		if r.Path == "/" || r.Path == "/json" || r.Path == "/video" || r.Path == "/id/:id" {
			t.Fatalf("background route %v shadows a scenario", r)
		}
	}
	if len(BackgroundRoutes) < 18 {
		t.Fatalf("%d background routes, want about 20", len(BackgroundRoutes))
	}
}
