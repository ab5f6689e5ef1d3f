package targets

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
)

// TestUWS bundles server.ts, runs it under node on the pinned upstream and verifies every
// scenario (ws-echo included). node_modules comes from scripts/setup.sh (npm ci); without it the test says so.
func TestUWS(t *testing.T) {
	tg, s := startUWS(t, StartOptions{})
	if err := Verify(context.Background(), "uws", s.Addr(), scenario.All()); err != nil {
		t.Fatal(err)
	}
	checkStatus(t, s.Addr(), "GET", "/nope", 404)
	checkStatus(t, s.Addr(), "GET", "/api/v1/users/7/posts", 200)
	checkStatus(t, s.Addr(), "GET", "/static/a/b", 200)
	// uWebSockets lets a GET of /ws that is no upgrade fall through to the catch-all (404); the
	// Go targets' upgraders answer 400. Neither is part of the scenario.
	checkStatus(t, s.Addr(), "GET", scenario.WSPath, 404)
	if h, err := s.Info(); err != nil || h.HeapBytes <= 0 {
		t.Errorf("info %+v, %v", h, err)
	}
	if u, err := s.Usage(); err != nil || u.RSSBytes < scenario.VideoSize {
		t.Errorf("usage %+v, %v", u, err)
	}
	v := tg.Versions()
	if v[upstreamPackage] != "20.30.0-unofficial.0" || !strings.HasPrefix(v["node"], "v") {
		t.Errorf("versions %v", v)
	}
	path, size, err := tg.Artifact()
	if err != nil || size <= 0 || !strings.HasSuffix(path, filepath.Join("build", "uws", "server.js")) {
		t.Errorf("artifact %s %d %v", path, size, err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	waitGone(t, s.Pid, "uws server")
}

// With Threads 3 the uws target runs three uWebSockets.js apps (the main thread's and two
// worker threads) on the port, as the binding runs three loops: every one of them answers,
// and the info route reports three threads and the heaps of all three isolates.
func TestUWSThreads(t *testing.T) {
	_, one := startUWS(t, StartOptions{Threads: 1})
	single, err := one.Info()
	if err != nil || single.Threads != 1 {
		t.Fatalf("1 thread: %+v %v", single, err)
	}
	one.Stop()
	_, s := startUWS(t, StartOptions{Threads: 3})
	if err := Verify(context.Background(), "uws", s.Addr(), scenario.HTTP()); err != nil {
		t.Fatal(err)
	}
	inf, err := s.Info()
	if err != nil || inf.Threads != 3 || inf.HeapBytes < 2*single.HeapBytes {
		t.Errorf("3 threads: %+v (one thread: %+v), %v", inf, single, err)
	}
	// Each app says which it is; over fresh connections the kernel spreads them over all three
	// (on a busy machine the worker threads may start listening a moment after the main app).
	seen := map[int]bool{}
	for deadline := time.Now().Add(5 * time.Second); len(seen) < 3 && time.Now().Before(deadline); {
		seen[appIndex(t, s.Addr())] = true
	}
	if len(seen) != 3 {
		t.Errorf("apps answering: %v, want 0, 1 and 2", seen)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	waitGone(t, s.Pid, "uws server")
}

// appIndex asks the info route on a fresh connection which uws app answered.
func appIndex(t *testing.T, addr string) int {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get("http://" + addr + scenario.InfoPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct{ Thread *int }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || v.Thread == nil {
		t.Fatalf("info: %v", err)
	}
	return *v.Thread
}
