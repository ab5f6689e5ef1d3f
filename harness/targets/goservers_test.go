package targets

import (
	"context"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/bindrace/bindrace/harness/scenario"
)

// TestGoServersInProcess serves each Go target on a loopback listener inside the test process
// and verifies every scenario (ws-echo included), then checks the graceful shutdown returns cleanly.
func TestGoServersInProcess(t *testing.T) {
	for _, name := range []string{"fasthttp", "nethttp"} {
		t.Run(name, func(t *testing.T) {
			addr, stop := serveGo(t, name)
			if err := Verify(context.Background(), name, addr, scenario.All()); err != nil {
				t.Errorf("Verify: %v", err)
			}
			// Unknown paths and methods are 404, background routes answer.
			checkStatus(t, addr, "GET", "/nope", 404)
			checkStatus(t, addr, "GET", "/api/v1/users/7/posts", 200)
			checkStatus(t, addr, "GET", "/static/a/b", 200)
			checkStatus(t, addr, "DELETE", "/api/v1/users/7", 200)
			checkStatus(t, addr, "GET", scenario.WSPath, 400) // not an upgrade request
			if err := stop(); err != nil {
				t.Errorf("ServeGo after cancel: %v", err)
			}
		})
	}
}

func TestServeGoUnknown(t *testing.T) {
	ln, _ := loopback.Listen(t)
	if err := ServeGo(context.Background(), "uws", ln); err == nil {
		t.Fatal("ServeGo(uws) succeeded")
	}
}
