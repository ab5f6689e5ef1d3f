package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/valyala/fasthttp"
)

func pingReq(addr string) [][]byte {
	return [][]byte{[]byte("GET / HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")}
}

func countCfg(addr string, count int64) Config {
	return Config{Addr: addr, Requests: pingReq(addr), Connections: 7, Pipelining: 10, Workers: 2,
		Count: count, Timeout: 2 * time.Second}
}

func noErrors(t *testing.T, res *Result) {
	t.Helper()
	if len(res.Errors) != 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
}

func TestRunCountExactRaw(t *testing.T) {
	s := newRawServer(t, answer(pingResp))
	for _, count := range []int64{1, 9, 10, 1003} {
		before := s.requests.Load()
		res, err := Run(context.Background(), countCfg(s.addr(), count), Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		noErrors(t, res)
		if res.Responses != count || s.requests.Load()-before != count || res.Hist.TotalCount() != count {
			t.Fatalf("count %d: responses %d, server saw %d, histogram %d", count, res.Responses,
				s.requests.Load()-before, res.Hist.TotalCount())
		}
		if res.Elapsed <= 0 || res.RPS <= 0 || res.Latency.P50 <= 0 || res.BytesRead != count*int64(len(pingResp)) {
			t.Fatalf("count %d: %+v", count, res)
		}
	}
}

func TestRunCountExactFastHTTP(t *testing.T) {
	ln, _ := loopback.Listen(t)
	var served atomic.Int64
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		served.Add(1)
		ctx.SetContentType("text/plain")
		ctx.WriteString("hi")
	}}
	go srv.Serve(ln)
	defer srv.Shutdown()
	res, err := Run(context.Background(), countCfg(ln.Addr().String(), 5000), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	noErrors(t, res)
	if res.Responses != 5000 || served.Load() != 5000 {
		t.Fatalf("responses %d, served %d", res.Responses, served.Load())
	}
}

func TestRunCountExactNetHTTP(t *testing.T) {
	var served atomic.Int64
	// Chunked answers (no Content-Length, flushed) and 404s exercise the other framing path
	// and the status counting through a real server.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		if n%10 == 0 {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "hello")
		w.(http.Flusher).Flush()
		io.WriteString(w, " world")
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	res, err := Run(context.Background(), countCfg(addr, 2000), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Responses != 2000 || served.Load() != 2000 {
		t.Fatalf("responses %d, served %d", res.Responses, served.Load())
	}
	if res.Errors["status_404"] != 200 || len(res.Errors) != 1 {
		t.Fatalf("errors %v, want status_404: 200", res.Errors)
	}
}

func TestRunStatusErrors(t *testing.T) {
	s := newRawServer(t, answer("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\noops"))
	res, err := Run(context.Background(), countCfg(s.addr(), 100), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Responses != 100 || res.Errors[KindStatus(500)] != 100 || len(res.Errors) != 1 {
		t.Fatalf("responses %d errors %v", res.Responses, res.Errors)
	}
}

// KindStatus is how a non-2xx status appears in Result.Errors.
func KindStatus(code int) string { return fmt.Sprintf("status_%d", code) }

func TestRunServerClosesMidBatch(t *testing.T) {
	// Answer half of each batch, then hang up without saying so.
	s := newRawServer(t, func(n int, _ int64) (string, bool) { return strings.Repeat(pingResp, n/2), true })
	cfg := countCfg(s.addr(), 200)
	res, err := Run(context.Background(), cfg, Hooks{})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("want ErrIncomplete, got %v", err)
	}
	if res.Errors[kindClosed] == 0 || res.Responses != 100 {
		t.Fatalf("responses %d errors %v", res.Responses, res.Errors)
	}
}

func TestRunGarbage(t *testing.T) {
	s := newRawServer(t, func(n int, _ int64) (string, bool) { return "garbage\r\n\r\n", false })
	cfg := countCfg(s.addr(), 50)
	cfg.Workers = 1
	res, err := Run(context.Background(), cfg, Hooks{})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("want ErrIncomplete, got %v", err)
	}
	if res.Errors[kindMalformed] != 5 || res.Responses != 0 { // 5 batches of 10, each lost
		t.Fatalf("responses %d errors %v", res.Responses, res.Errors)
	}
}

func TestRunUnsolicitedIsMalformed(t *testing.T) {
	s := newRawServer(t, func(n int, _ int64) (string, bool) { return strings.Repeat(pingResp, n+1), false })
	cfg := countCfg(s.addr(), 10)
	cfg.Workers = 1
	res, _ := Run(context.Background(), cfg, Hooks{})
	if res.Errors[kindMalformed] != 1 || res.Responses != 10 {
		t.Fatalf("responses %d errors %v", res.Responses, res.Errors)
	}
}

func TestRunConnectionClose(t *testing.T) {
	// One response per connection, announced: not an error; the rest of each batch is sent
	// again on a new connection, so Count stays exact.
	s := newRawServer(t, func(n int, _ int64) (string, bool) {
		return "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi", true
	})
	res, err := Run(context.Background(), countCfg(s.addr(), 60), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	noErrors(t, res)
	if res.Responses != 60 || s.conns.Load() < 60 || res.Reconnects < 60-7 {
		t.Fatalf("responses %d over %d connections", res.Responses, s.conns.Load())
	}
}

func TestRunTimeout(t *testing.T) {
	s := newRawServer(t, func(int, int64) (string, bool) { return "", false }) // never answers
	cfg := countCfg(s.addr(), 20)
	cfg.Connections, cfg.Workers, cfg.Timeout = 2, 1, 100*time.Millisecond
	start := time.Now()
	res, err := Run(context.Background(), cfg, Hooks{})
	if !errors.Is(err, ErrIncomplete) || res.Errors[kindTimeout] != 2 {
		t.Fatalf("err %v errors %v", err, res.Errors)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %s", d)
	}
}

func TestRunWarmupExcluded(t *testing.T) {
	s := newRawServer(t, answer(pingResp))
	var order []string
	var atStart, atEnd int64
	cfg := Config{Addr: s.addr(), Requests: pingReq(s.addr()), Connections: 4, Pipelining: 10, Workers: 2,
		Warmup: 300 * time.Millisecond, Duration: 400 * time.Millisecond}
	res, err := Run(context.Background(), cfg, Hooks{
		MeasureStart: func() { order = append(order, "start"); atStart = s.responses.Load() },
		MeasureEnd:   func() { order = append(order, "end"); atEnd = s.responses.Load() },
	})
	if err != nil {
		t.Fatal(err)
	}
	noErrors(t, res)
	if strings.Join(order, ",") != "start,end" {
		t.Fatalf("hooks %v", order)
	}
	if atStart == 0 {
		t.Fatal("no responses during warm-up")
	}
	// MeasureStart runs before the window opens and MeasureEnd after it closes, so the window
	// cannot hold more than the server wrote between the hooks plus what was in flight at the
	// start: warm-up responses would break this bound. The other direction only says the hooks
	// were not wildly late (a descheduled hook lets the server write on), so it is loose.
	inFlight := int64(cfg.Connections * cfg.Pipelining)
	between := atEnd - atStart
	if res.Responses == 0 || res.Responses > between+inFlight || res.Responses < between/2 {
		t.Fatalf("window responses %d, server wrote %d between hooks", res.Responses, between)
	}
	if res.Hist.TotalCount() != res.Responses {
		t.Fatalf("histogram holds %d, responses %d", res.Hist.TotalCount(), res.Responses)
	}
	if res.Elapsed < cfg.Duration || res.Elapsed > cfg.Duration+time.Second {
		t.Fatalf("elapsed %s", res.Elapsed)
	}
}

func TestRunCancel(t *testing.T) {
	s := newRawServer(t, answer(pingResp))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(400*time.Millisecond, cancel)
	ended := false
	cfg := Config{Addr: s.addr(), Requests: pingReq(s.addr()), Connections: 4, Pipelining: 10,
		Warmup: 100 * time.Millisecond, Duration: 30 * time.Second}
	start := time.Now()
	res, err := Run(ctx, cfg, Hooks{MeasureEnd: func() { ended = true }})
	if d := time.Since(start); d > time.Second {
		t.Fatalf("cancel took %s", d)
	}
	if !errors.Is(err, ErrIncomplete) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if res == nil || res.Responses == 0 || !ended || res.Elapsed > time.Second {
		t.Fatalf("res %+v ended %v", res, ended)
	}
}

func TestRunNothingListening(t *testing.T) {
	addr := loopback.Unused(t).String()
	_, err := Run(context.Background(), countCfg(addr, 10), Hooks{})
	if !errors.Is(err, errConnect) {
		t.Fatalf("want errConnect, got %v", err)
	}
}

func TestRunRoundRobin(t *testing.T) {
	var a, b atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a" {
			a.Add(1)
		} else {
			b.Add(1)
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	cfg := countCfg(addr, 100)
	cfg.Connections, cfg.Pipelining, cfg.Workers = 1, 3, 1
	cfg.Requests = [][]byte{[]byte("GET /a HTTP/1.1\r\nHost: x\r\n\r\n"), []byte("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")}
	if _, err := Run(context.Background(), cfg, Hooks{}); err != nil {
		t.Fatal(err)
	}
	if a.Load() != 50 || b.Load() != 50 {
		t.Fatalf("a %d b %d", a.Load(), b.Load())
	}
}

func TestRunLargeBodies(t *testing.T) {
	body := strings.Repeat("v", 3<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			for i := 0; i < 3; i++ { // no length: net/http sends it chunked
				io.WriteString(w, body[:1<<20])
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		io.WriteString(w, body)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	cfg := countCfg(addr, 40)
	cfg.Connections, cfg.Pipelining = 4, 2
	cfg.Requests = [][]byte{[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), []byte("GET /chunked HTTP/1.1\r\nHost: x\r\n\r\n")}
	res, err := Run(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	noErrors(t, res)
	if res.Responses != 40 || res.BytesRead < 40*int64(len(body)) {
		t.Fatalf("responses %d bytes %d", res.Responses, res.BytesRead)
	}
}

func TestRunServerGoneCountModeEnds(t *testing.T) {
	// The listener accepts the probe dial and then goes away: every connect is refused and
	// Count mode must give up after the timeout rather than wait forever.
	ln, _ := loopback.Listen(t)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
		ln.Close()
	}()
	cfg := countCfg(ln.Addr().String(), 100)
	cfg.Timeout = 300 * time.Millisecond
	start := time.Now()
	res, err := Run(context.Background(), cfg, Hooks{})
	if !errors.Is(err, ErrIncomplete) || res.Errors[kindConnect] == 0 || res.Responses != 0 {
		t.Fatalf("err %v res %+v", err, res)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %s", d)
	}
}

// Each response's latency is its own: from its request's send time to the read that brought
// its last byte. A server that answers the first half of every pipelined batch at once and the
// second half 60 ms later gives half the latencies near zero and half near 60 ms, not one
// figure per batch.
func TestRunLatencyPerResponse(t *testing.T) {
	seen := map[net.Conn]int{} // requests read and not yet answered, per connection
	var mu sync.Mutex
	addr := loopback.Serve(t, func(c net.Conn, chunk []byte) {
		mu.Lock()
		seen[c] += strings.Count(string(chunk), "\r\n\r\n")
		batches := seen[c] / 10
		seen[c] %= 10
		mu.Unlock()
		for range batches {
			c.Write([]byte(strings.Repeat(pingResp, 5)))
			time.Sleep(60 * time.Millisecond)
			c.Write([]byte(strings.Repeat(pingResp, 5)))
		}
	})
	cfg := countCfg(addr, 40)
	cfg.Connections, cfg.Workers = 1, 1
	res, err := Run(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	h := res.Hist
	if h.TotalCount() != 40 || h.ValueAtQuantile(45) > 30_000 || h.ValueAtQuantile(55) < 60_000 {
		t.Fatalf("%d latencies, p45 %d µs, p55 %d µs: want half near 0 and half near 60 ms", h.TotalCount(),
			h.ValueAtQuantile(45), h.ValueAtQuantile(55))
	}
}
