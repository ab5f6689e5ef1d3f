package binding

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestListenErrors(t *testing.T) {
	a := testApp(t, Config{}, 1, nil)
	if err := a.Handle("GET", "/late", func(w *Response, r *Request) {}); err != ErrStarted {
		t.Fatalf("route after Listen: %v", err)
	}
	b := New(Config{})
	if err := b.Handle("GET", "no-slash", func(w *Response, r *Request) {}); err == nil {
		t.Fatal("bad pattern accepted")
	}
	if err := b.Handle("GET", "/a/*/b", func(w *Response, r *Request) {}); err == nil {
		t.Fatal("inner * accepted")
	}
	b.Get("/x/:id", func(w *Response, r *Request) {})
	if err := b.Handle("GET", "/x/:id", func(w *Response, r *Request) {}); err == nil {
		t.Fatal("duplicate accepted")
	}
	if err := b.Listen("256.0.0.1:0", 1); err == nil {
		t.Fatal("bad address accepted")
	}
	b.Shutdown(context.Background())
}

// A port someone else listens on is an error, even when that someone is another app whose
// SO_REUSEPORT group this one could otherwise join and split connections with.
func TestListenPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	other := testApp(t, Config{}, 2, nil)
	for _, addr := range []string{ln.Addr().String(), fmt.Sprintf("127.0.0.1:%d", other.Port()),
		fmt.Sprintf("0.0.0.0:%d", other.Port())} {
		b := New(Config{})
		err := b.Listen(addr, 2)
		if !errors.Is(err, syscall.EADDRINUSE) {
			t.Errorf("listen %s while in use: %v, want EADDRINUSE", addr, err)
		}
		b.Shutdown(context.Background())
	}
}

// Static, parameter and wildcard routes, per method and any-method, with HEAD falling back to GET.
func TestRouting(t *testing.T) {
	a := testApp(t, Config{}, 1, func(a *App) {
		name := func(s string) Handler {
			return func(w *Response, r *Request) {
				w.WriteString(s)
				for i := 0; r.ParamIndex(i) != nil; i++ {
					w.WriteString(" ")
					w.Write(r.ParamIndex(i))
				}
			}
		}
		a.Get("/u/me", name("me"))
		a.Get("/u/:id", name("user"))
		a.Get("/u/:id/posts/:post", name("post"))
		a.Get("/files/*", name("files"))
		a.Any("/any", name("any"))
		a.Post("/u/:id", name("post-user"))
		a.Get("/id/:id/x", name("idx"))
	})
	c := dial(t, a)
	br := bufio.NewReader(c)
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/u/me", "me"},
		{"GET", "/u/7", "user 7"},
		{"POST", "/u/7", "post-user 7"},
		{"GET", "/u/7/posts/9", "post 7 9"},
		{"GET", "/files/a/b/c", "files"},
		{"GET", "/files/", "files"},
		{"DELETE", "/any", "any"},
		{"GET", "/any", "any"},
		{"GET", "/id/3/x", "idx 3"},
		{"GET", "/id/3?name=n", "3 n"},
		{"PUT", "/u/7", "Method Not Allowed"}, // GET and POST routes: 405 with Allow
		{"HEAD", "/u/7", ""},                  // HEAD falls back to GET
		{"DELETE", "/u/me", "Method Not Allowed"},
		{"POST", "/files/x", "Method Not Allowed"},
		{"GET", "/u/", "Not Found"},
		{"GET", "/files", "Not Found"},
	} {
		raw := tc.method + " " + tc.path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
		res := roundTrip(t, c, br, raw, tc.method)
		if got := body(t, res); got != tc.want {
			t.Errorf("%s %s: %q want %q", tc.method, tc.path, got, tc.want)
		}
		allow := map[string]string{"/u/7": "GET, HEAD, POST", "/u/me": "GET, HEAD, POST", "/files/x": "GET, HEAD"}[tc.path]
		if got := res.Header.Get("Allow"); tc.want == "Method Not Allowed" && (res.StatusCode != 405 || got != allow) {
			t.Errorf("%s %s: %d, Allow %q; want 405, Allow %q", tc.method, tc.path, res.StatusCode, got, allow)
		}
	}
}

// Shutdown under load answers every request whose bytes were read, then closes.
func TestShutdownUnderLoad(t *testing.T) {
	a := New(Config{})
	a.Get("/", func(w *Response, r *Request) { w.WriteString("hi") })
	asyncRoutes(a)
	if err := a.Listen("127.0.0.1:0", 2); err != nil {
		t.Fatal(err)
	}
	const conns = 20
	var wg sync.WaitGroup
	var answered atomic.Int64
	started := make(chan struct{}, conns)
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr(a))
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			br := bufio.NewReader(c)
			// One write: the server reads all of it at once.
			io.WriteString(c, get("/")+get("/async/200")+get("/")+get("/async/100")+get("/"))
			for j := 0; j < 5; j++ {
				res, err := http.ReadResponse(br, nil)
				if err != nil {
					t.Errorf("response %d: %v", j, err)
					return
				}
				body(t, res)
				answered.Add(1)
				if j == 0 {
					started <- struct{}{}
				}
			}
			if rest, _ := io.ReadAll(br); len(rest) != 0 {
				t.Errorf("extra bytes %q", rest)
			}
		}()
	}
	for i := 0; i < conns; i++ {
		<-started
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if n := answered.Load(); n != conns*5 {
		t.Fatalf("answered %d of %d", n, conns*5)
	}
	if _, err := net.DialTimeout("tcp", addr(a), time.Second); err == nil {
		t.Fatal("still accepting after Shutdown")
	}
}

func TestThreads(t *testing.T) {
	a := testApp(t, Config{}, 4, nil)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res, err := http.Get(fmt.Sprintf("http://%s/id/%d?name=t", addr(a), i))
			if err != nil {
				t.Error(err)
				return
			}
			if got := body(t, res); got != fmt.Sprintf("%d t", i) {
				t.Error(got)
			}
		}(i)
	}
	wg.Wait()
}
