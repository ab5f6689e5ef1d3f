package binding

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// testApp serves a representative route set on 127.0.0.1:0 and shuts down with the test.
func testApp(t testing.TB, cfg Config, threads int, extra func(*App)) *App {
	t.Helper()
	a := New(cfg)
	a.Get("/", func(w *Response, r *Request) {
		w.Header("content-type", "text/plain")
		w.WriteString("hi")
	})
	a.Get("/id/:id", func(w *Response, r *Request) {
		w.Header("content-type", "text/plain")
		w.Header("x-powered-by", "benchmark")
		if len(r.Header("x-bench")) == 0 {
			w.Header("x-bench-missing", "1")
		}
		w.Write(r.Param("id"))
		w.WriteString(" ")
		w.Write(r.Query("name"))
	})
	a.Post("/echo", func(w *Response, r *Request) { w.Write(r.Body()) })
	if err := a.Static("GET", "/s", 200, "text/plain", []byte("static")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		a.Get(fmt.Sprintf("/bg/%d/:x", i), func(w *Response, r *Request) {})
	}
	if extra != nil {
		extra(a)
	}
	if err := a.Listen("127.0.0.1:0", threads); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Shutdown(ctx)
	})
	return a
}

func addr(a *App) string { return fmt.Sprintf("127.0.0.1:%d", a.Port()) }

func dial(t testing.TB, a *App) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr(a))
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip writes raw bytes and reads one response.
func roundTrip(t testing.TB, c net.Conn, br *bufio.Reader, raw string, method string) *http.Response {
	t.Helper()
	if raw != "" {
		if _, err := io.WriteString(c, raw); err != nil {
			t.Fatal(err)
		}
	}
	res, err := http.ReadResponse(br, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("reading response to %q: %v", raw, err)
	}
	return res
}

func body(t testing.TB, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return string(b)
}

func get(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n" }

// expectClosed checks that the server closed c (after any response bytes).
func expectClosed(t testing.TB, c net.Conn, br *bufio.Reader) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	rest, err := io.ReadAll(br)
	if err != nil {
		t.Fatalf("connection not closed: %v", err)
	}
	if strings.TrimSpace(string(rest)) != "" {
		t.Fatalf("unexpected bytes after the last response: %q", rest)
	}
}

// concurrently runs f(0) to f(n-1) in goroutines of their own, as clients of a server under
// test, and returns their errors once all have returned.
func concurrently(n int, f func(i int) error) []error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := f(i); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return all
}
