package binding

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func asyncRoutes(a *App) {
	// /async/:ms answers after ms milliseconds from another goroutine.
	a.Get("/async/:ms", func(w *Response, r *Request) {
		ms, _ := strconv.Atoi(string(r.Param("ms")))
		w.Header("content-type", "text/plain")
		d := w.Detach()
		go func() {
			time.Sleep(time.Duration(ms) * time.Millisecond)
			d.WriteString("async " + strconv.Itoa(ms))
			d.End()
		}()
	})
}

// A detached response keeps its place: pipelined answers behind it wait for it.
func TestAsyncInOrder(t *testing.T) {
	a := testApp(t, Config{}, 2, asyncRoutes)
	conn := dial(t, a)
	br := bufio.NewReader(conn)
	io.WriteString(conn, get("/async/50")+get("/")+get("/s")+get("/async/1")+get("/id/3?name=z"))
	for _, want := range []string{"async 50", "hi", "static", "async 1", "3 z"} {
		if got := body(t, roundTrip(t, conn, br, "", "GET")); got != want {
			t.Fatalf("%q want %q", got, want)
		}
	}
}

func TestStreamFromGoroutine(t *testing.T) {
	payload := bytes.Repeat([]byte("stream-bytes-"), 400000) // ~5 MB
	a := testApp(t, Config{SendBuffer: 64 << 10}, 1, func(a *App) {
		a.Get("/chunked", func(w *Response, r *Request) {
			w.Header("content-type", "application/octet-stream")
			s, err := w.Stream(-1)
			if err != nil {
				t.Error(err)
				return
			}
			go func() {
				for p := payload; len(p) > 0; {
					n := min(len(p), 32<<10)
					if _, err := s.Write(p[:n]); err != nil {
						t.Error(err)
						return
					}
					p = p[n:]
				}
				s.Close()
			}()
		})
		a.Get("/sized", func(w *Response, r *Request) {
			s, _ := w.Stream(int64(len(payload)))
			go func() {
				s.Write(payload)
				s.Close()
			}()
		})
		a.Get("/async-stream", func(w *Response, r *Request) {
			d := w.Detach()
			go func() {
				s, _ := d.Stream(-1)
				s.Write([]byte("late "))
				s.Write([]byte("stream"))
				s.Close()
			}()
		})
	})
	conn := dial(t, a)
	br := bufio.NewReader(conn)
	io.WriteString(conn, get("/chunked")+get("/sized")+get("/async-stream")+get("/"))
	for i, want := range []string{string(payload), string(payload), "late stream", "hi"} {
		res := roundTrip(t, conn, br, "", "GET")
		if i < 2 {
			time.Sleep(50 * time.Millisecond) // a slow reader: the writer must wait, not buffer
		}
		if got := body(t, res); got != want {
			t.Fatalf("response %d: %d bytes, want %d", i, len(got), len(want))
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

func rssKiB(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			v, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return v
		}
	}
	return 0
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
