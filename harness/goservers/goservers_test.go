package goservers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// TestServeInProcess serves each Go target on a loopback listener inside the test process,
// verifies every scenario (ws-echo included), then checks the graceful shutdown returns cleanly.
// (harness/targets' tests run them as the go-server processes a race starts.)
func TestServeInProcess(t *testing.T) {
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			ln, _ := loopback.Listen(t)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- Serve(ctx, name, ln) }()
			if err := targets.Verify(context.Background(), name, ln.Addr().String(), scenario.All()); err != nil {
				t.Errorf("Verify: %v", err)
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve after cancel: %v", err)
				}
			case <-time.After(6 * time.Second):
				t.Error(errors.New("Serve did not return after cancel"))
			}
		})
	}
}

func TestServeUnknown(t *testing.T) {
	ln, _ := loopback.Listen(t)
	if err := Serve(context.Background(), "uws", ln); err == nil {
		t.Fatal("Serve(uws) succeeded")
	}
}
