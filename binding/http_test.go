package binding

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

func TestScenariosNetHTTP(t *testing.T) {
	video := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	vb := NewBody(video)
	defer vb.Release()
	a := testApp(t, Config{}, 2, func(a *App) {
		a.Post("/json", func(w *Response, r *Request) {
			var v map[string]any
			if err := json.Unmarshal(r.Body(), &v); err != nil {
				w.Status(400)
				return
			}
			out, _ := json.Marshal(v)
			w.Header("content-type", "application/json")
			w.Write(out)
		})
		a.Get("/video", func(w *Response, r *Request) {
			w.Header("content-type", "video/mp4")
			w.SendBody(vb)
		})
		a.StaticBody("GET", "/svideo", 200, "video/mp4", vb)
	})
	base := "http://" + addr(a)
	cases := []struct {
		method, path, body, want, ctype string
		status                          int
	}{
		{"GET", "/", "", "hi", "text/plain", 200},
		{"GET", "/id/1?name=bun", "", "1 bun", "text/plain", 200},
		{"POST", "/json", `{"hello":"world"}`, `{"hello":"world"}`, "application/json", 200},
		{"GET", "/s", "", "static", "text/plain", 200},
		{"GET", "/nope", "", "Not Found", "text/plain", 404},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		req.Header.Set("x-bench", "1")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got := body(t, res)
		if res.StatusCode != c.status || got != c.want || res.Header.Get("content-type") != c.ctype {
			t.Errorf("%s %s: %d %q %q", c.method, c.path, res.StatusCode, res.Header.Get("content-type"), got)
		}
		if c.path == "/id/1?name=bun" && (res.Header.Get("x-powered-by") != "benchmark" || res.Header.Get("x-bench-missing") != "") {
			t.Errorf("params headers: %v", res.Header)
		}
		if res.Header.Get("date") == "" {
			t.Errorf("no Date header")
		}
	}
	want := sha256.Sum256(video)
	for _, p := range []string{"/video", "/svideo", "/video"} {
		req, _ := http.NewRequest("GET", base+p, nil)
		req.Header.Set("If-None-Match", `"never"`)
		req.Header.Set("Cache-Control", "no-store")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.Sum256([]byte(body(t, res)))
		if res.StatusCode != 200 || got != want || res.Header.Get("content-type") != "video/mp4" {
			t.Errorf("%s: %d %s", p, res.StatusCode, hex.EncodeToString(got[:]))
		}
	}
}

func TestFasthttpClient(t *testing.T) {
	a := testApp(t, Config{}, 1, nil)
	c := &fasthttp.Client{}
	for i := 0; i < 50; i++ {
		req, res := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI(fmt.Sprintf("http://%s/id/%d?name=x", addr(a), i))
		if err := c.Do(req, res); err != nil {
			t.Fatal(err)
		}
		if res.StatusCode() != 200 || string(res.Body()) != fmt.Sprintf("%d x", i) {
			t.Fatalf("%d %q", res.StatusCode(), res.Body())
		}
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(res)
	}
}

// 100 connections with 10 requests in flight each, Go and static routes mixed.
func TestPipelining(t *testing.T) {
	a := testApp(t, Config{}, 2, nil)
	for _, err := range concurrently(100, func(c int) error {
		conn := dial(t, a)
		br := bufio.NewReader(conn)
		for round := 0; round < 5; round++ {
			var b strings.Builder
			var want []string
			for i := 0; i < 10; i++ {
				switch i % 3 {
				case 0:
					b.WriteString(get(fmt.Sprintf("/id/%d?name=r%d", c*100+i, round)))
					want = append(want, fmt.Sprintf("%d r%d", c*100+i, round))
				case 1:
					b.WriteString(get("/s"))
					want = append(want, "static")
				default:
					b.WriteString(get("/"))
					want = append(want, "hi")
				}
			}
			io.WriteString(conn, b.String())
			for i := 0; i < 10; i++ {
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					return err
				}
				got, _ := io.ReadAll(res.Body)
				if string(got) != want[i] {
					return fmt.Errorf("conn %d req %d: %q, want %q", c, i, got, want[i])
				}
			}
		}
		return nil
	}) {
		t.Error(err)
	}
}

// A request split at every byte boundary parses identically.
func TestSplitAtEveryByte(t *testing.T) {
	a := testApp(t, Config{}, 1, nil)
	req := "POST /echo?x=1 HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\nX-A: b\r\n\r\nhello world"
	conn := dial(t, a)
	br := bufio.NewReader(conn)
	for i := 1; i < len(req); i++ {
		io.WriteString(conn, req[:i])
		if i%7 == 0 {
			// give the server a chance to see the fragment on its own
			conn.(interface{ SetNoDelay(bool) error }).SetNoDelay(true)
		}
		io.WriteString(conn, req[i:])
		res := roundTrip(t, conn, br, "", "POST")
		if got := body(t, res); res.StatusCode != 200 || got != "hello world" {
			t.Fatalf("split at %d: %d %q", i, res.StatusCode, got)
		}
	}
	// One byte per write, chunked body.
	chunked := "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: t\r\n\r\n"
	for i := 0; i < len(chunked); i++ {
		conn.Write([]byte{chunked[i]})
	}
	res := roundTrip(t, conn, br, "", "POST")
	if got := body(t, res); got != "hello world" {
		t.Fatalf("chunked one byte at a time: %q", got)
	}
}

func TestConnectionSemantics(t *testing.T) {
	a := testApp(t, Config{}, 1, nil)
	t.Run("keep-alive", func(t *testing.T) {
		c := dial(t, a)
		br := bufio.NewReader(c)
		for i := 0; i < 3; i++ {
			if got := body(t, roundTrip(t, c, br, get("/"), "GET")); got != "hi" {
				t.Fatal(got)
			}
		}
	})
	t.Run("close", func(t *testing.T) {
		c := dial(t, a)
		br := bufio.NewReader(c)
		res := roundTrip(t, c, br, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"+get("/"), "GET")
		if body(t, res) != "hi" || !res.Close {
			t.Fatal(res.Header)
		}
		expectClosed(t, c, br)
	})
	t.Run("http10", func(t *testing.T) {
		c := dial(t, a)
		br := bufio.NewReader(c)
		res := roundTrip(t, c, br, "GET /s HTTP/1.0\r\n\r\n", "GET")
		if body(t, res) != "static" {
			t.Fatal()
		}
		expectClosed(t, c, br)
		c = dial(t, a)
		br = bufio.NewReader(c)
		res = roundTrip(t, c, br, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "GET")
		if body(t, res) != "hi" || !strings.EqualFold(res.Header.Get("connection"), "keep-alive") {
			t.Fatal(res.Header)
		}
		if body(t, roundTrip(t, c, br, "GET /s HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "GET")) != "static" {
			t.Fatal()
		}
	})
	t.Run("expect-100", func(t *testing.T) {
		c := dial(t, a)
		br := bufio.NewReader(c)
		io.WriteString(c, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
		line, _ := br.ReadString('\n')
		blank, _ := br.ReadString('\n')
		if line != "HTTP/1.1 100 Continue\r\n" || blank != "\r\n" {
			t.Fatalf("%q %q", line, blank)
		}
		if got := body(t, roundTrip(t, c, br, "ping", "POST")); got != "ping" {
			t.Fatal(got)
		}
	})
	t.Run("chunked", func(t *testing.T) {
		c := dial(t, a)
		br := bufio.NewReader(c)
		res := roundTrip(t, c, br, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nA\r\n0123456789\r\n0\r\n\r\n"+get("/"), "POST")
		if got := body(t, res); got != "abc0123456789" {
			t.Fatal(got)
		}
		if got := body(t, roundTrip(t, c, br, "", "GET")); got != "hi" {
			t.Fatal(got)
		}
	})
	t.Run("head", func(t *testing.T) {
		c := dial(t, a)
		br := bufio.NewReader(c)
		res := roundTrip(t, c, br, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n", "HEAD")
		if res.ContentLength != 2 {
			t.Fatal(res.ContentLength)
		}
		if got := body(t, roundTrip(t, c, br, get("/s"), "GET")); got != "static" {
			t.Fatal(got)
		}
	})
}
