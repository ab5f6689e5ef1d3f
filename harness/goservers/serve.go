// Package goservers holds the scenario servers of the Go targets: fasthttp and nethttp, written
// the way a user of each library would write them for speed. harness/cmd/go-server runs one of
// them as its own process, as harness/cmd/binding-server runs the binding.
package goservers

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/bindrace/bindrace/harness/db"
)

// Names are the Go targets this package serves.
var Names = []string{"fasthttp", "nethttp"}

// shutdownGrace bounds the wait for in-flight requests; it stays below the harness's 3 s stop
// grace so that a client holding a half-sent request cannot turn a graceful stop into a SIGKILL.
const shutdownGrace = 1500 * time.Millisecond

// Serve serves the Go target name (fasthttp or nethttp) on ln until ctx is cancelled, then
// shuts down gracefully: stop accepting, finish in-flight requests, close. A connection still
// busy after shutdownGrace is closed, which is not an error. The database routes use the pool
// $BINDRACE_DB_URL names (db.QueriesFromEnv).
func Serve(ctx context.Context, name string, ln net.Listener) error {
	q, err := db.QueriesFromEnv(ctx)
	if err != nil {
		ln.Close()
		return err
	}
	if q != nil {
		defer q.Close()
	}
	serve, shutdown, err := server(name, q, ln)
	if err != nil {
		ln.Close()
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- serve() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	select {
	case err := <-errc:
		return err
	case <-sctx.Done():
		return nil // fasthttp's Serve may wait on the stuck connection; the process exits anyway
	}
}

// server is name's serve and shutdown over ln, its database routes on q.
func server(name string, q *db.Queries, ln net.Listener) (serve func() error, shutdown func(context.Context) error, err error) {
	switch name {
	case "fasthttp":
		s := newFastHTTP(q)
		return func() error { return s.Serve(ln) }, s.ShutdownWithContext, nil
	case "nethttp":
		s := newNetHTTP(q)
		serve = func() error {
			if err := s.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		}
		shutdown = func(ctx context.Context) error {
			err := s.Shutdown(ctx)
			if err != nil {
				s.Close()
			}
			return err
		}
		return serve, shutdown, nil
	}
	return nil, nil, fmt.Errorf("target %q is not a Go target (fasthttp, nethttp)", name)
}
