package engine

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/valyala/fasthttp"
)

// seqServer answers every request and records the paths it saw.
func seqServer(t *testing.T) (addr string, paths func() map[string]int) {
	ln, _ := loopback.Listen(t)
	var mu sync.Mutex
	seen := map[string]int{}
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		mu.Lock()
		seen[string(ctx.Path())]++
		mu.Unlock()
		ctx.WriteString("ok")
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown() })
	return ln.Addr().String(), func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}

func seqBuild(dst []byte, seq uint64) []byte {
	dst = append(dst, "GET /k/"...)
	dst = strconv.AppendUint(dst, seq, 10)
	return append(dst, " HTTP/1.1\r\nHost: t\r\n\r\n"...)
}

// Every request a Build load sends is its own: as many distinct paths as requests, each once,
// whether requests go in pipelined batches (closed loop) or by schedule (open loop).
func TestRunBuildPerRequest(t *testing.T) {
	for _, open := range []bool{false, true} {
		addr, paths := seqServer(t)
		cfg := Config{Addr: addr, Build: seqBuild, Connections: 5, Pipelining: 8, Workers: 2,
			Count: 3000, Timeout: 2 * time.Second}
		if open {
			cfg.Count, cfg.Rate, cfg.Duration = 0, 4000, 300*time.Millisecond
		}
		res, err := Run(context.Background(), cfg, Hooks{})
		if err != nil {
			t.Fatal(err)
		}
		noErrors(t, res)
		seen := paths()
		total := 0
		for p, n := range seen {
			if n != 1 {
				t.Fatalf("open %v: %s sent %d times", open, p, n)
			}
			total++
		}
		if total < int(res.Responses) || res.Responses == 0 || (!open && total != 3000) {
			t.Fatalf("open %v: %d distinct paths, %d responses", open, total, res.Responses)
		}
	}
}

func TestBuilderReusesBuffers(t *testing.T) {
	b := newBuilder(seqBuild, 4, 1)
	for range 10 { // grow the ring's buffers
		b.batch(4)
	}
	if n := testing.AllocsPerRun(100, func() { b.batch(4) }); n != 0 {
		t.Errorf("a batch allocates %v times, want 0", n)
	}
}
