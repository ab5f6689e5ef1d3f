package targets

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

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
	if h, err := s.Heap(); err != nil || h <= 0 {
		t.Errorf("heap %d, %v", h, err)
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
