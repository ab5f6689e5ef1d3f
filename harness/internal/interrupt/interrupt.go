// Package interrupt is the harness's one signal helper: the CLI's commands and the in-process
// Go target servers (harness/targets) turn SIGINT, SIGTERM (and, for servers, SIGHUP) into a
// cancelled context through it.
package interrupt

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
)

// Commands are the signals that interrupt a command; Servers adds SIGHUP for a foreground
// server (a closed terminal stops it gracefully).
var (
	Commands = []os.Signal{syscall.SIGINT, syscall.SIGTERM}
	Servers  = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
)

// Handlers say what happens besides the cancellation; both may be nil.
type Handlers struct {
	// First is called with the first signal's name ("SIGINT") before the context is cancelled.
	First func(name string)
	// Again is called on a second signal; nil ignores later signals.
	Again func()
}

// Context is cancelled on the first of sigs, with the cause "interrupted by SIGINT" (the
// signal's name). stop releases the signals and cancels the context.
func Context(sigs []os.Signal, h Handlers) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			name := unix.SignalName(sig.(syscall.Signal))
			if h.First != nil {
				h.First(name)
			}
			cancel(fmt.Errorf("interrupted by %s", name))
		case <-done:
			return
		}
		for {
			select {
			case <-ch:
				if h.Again != nil {
					h.Again()
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}
