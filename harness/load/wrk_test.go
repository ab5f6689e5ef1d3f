package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// RunWrk drives the same windows with wrk: its responses are the server's (pipelined batches
// counted per response), the hooks bracket the measured run only, and wrk's latencies arrive.
func TestRunWrk(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("skipped: wrk is not installed (scripts/setup.sh installs it)")
	}
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		served.Add(1)
		w.Write([]byte("hi"))
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	var started, ended int
	cfg := Config{Addr: addr, Requests: [][]byte{[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")},
		Connections: 4, Pipelining: 5, Workers: 1, Warmup: time.Second, Duration: time.Second}
	res, err := RunWrk(context.Background(), cfg, Hooks{
		MeasureStart: func() { started++; ended -= 100 },
		MeasureEnd:   func() { ended += 101 },
	})
	if err != nil {
		t.Fatal(err)
	}
	if started != 1 || ended != 1 {
		t.Errorf("hooks: start %d end %d", started, ended)
	}
	// Pipelined: wrk's percentiles are not kept, its mean and max are.
	if res.Responses <= 0 || res.RPS <= 0 || res.Elapsed < 900*time.Millisecond || res.Latency.P99 != 0 || res.Latency.Mean <= 0 || res.ErrorCount() != 0 {
		t.Errorf("result %+v", res)
	}
	// The warm-up's responses went to the server too, but not into the figure.
	if n := served.Load(); n <= res.Responses {
		t.Errorf("server answered %d, wrk counted %d: the warm-up should be excluded", n, res.Responses)
	}
	cfg.Pipelining, cfg.Warmup = 1, 0
	if res, err := RunWrk(context.Background(), cfg, Hooks{}); err != nil || res.Latency.P99 <= 0 || res.Latency.P50 > res.Latency.P99 {
		t.Errorf("pipelining 1: %+v %v", res, err)
	}
	if _, err := RunWrk(context.Background(), Config{Addr: addr, Requests: cfg.Requests, Count: 10}, Hooks{}); err == nil {
		t.Error("Count mode accepted")
	}
}
