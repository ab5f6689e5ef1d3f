package measure

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/targets"
)

// Server is a started target's scenario server, here (targets.Server) or on the fleet's
// server host (fleet.Server): what a run and its probes read of it and how it ends.
type Server interface {
	Addr() string
	Usage() (procfs.Usage, error)
	Info() (targets.Info, error)
	Exited() <-chan struct{}
	ExitError() error
	Stop() error
	Name() string
	Pid() int
	Startup() time.Duration // spawn to first valid response
}

type localServer struct{ *targets.Server }

func (s localServer) Name() string           { return s.Target }
func (s localServer) Pid() int               { return s.Server.Pid }
func (s localServer) Startup() time.Duration { return s.Server.Startup }

type remoteServer struct{ *fleet.Server }

func (s remoteServer) Name() string           { return s.Target }
func (s remoteServer) Pid() int               { return s.Server.Pid }
func (s remoteServer) Startup() time.Duration { return s.Server.Startup }

// servers starts a session's servers, here or on the fleet's server host, and remembers the
// ones not yet stopped, so that none outlives the session.
type servers struct {
	fleet     *fleet.Fleet // nil, or without a server host: servers run here
	serverLog io.Writer    // the servers' output; nil: discarded (the last lines come with a failure)
	events    Events
	mu        sync.Mutex
	living    map[Server]bool
}

// start starts t with the given server shape; env is the extra environment (the database's).
func (ss *servers) start(ctx context.Context, t *targets.Target, pl Plan, spec Spec, env []string) (Server, error) {
	var srv Server
	var err error
	if ss.fleet != nil && ss.fleet.Server != nil {
		var rs *fleet.Server
		if rs, err = ss.fleet.StartServer(ctx, t.Name, pl.ServerThreads(), pl.StartTimeout); err == nil {
			srv = remoteServer{rs}
		}
	} else {
		var ls *targets.Server
		ls, err = t.Start(ctx, targets.StartOptions{Threads: pl.ServerThreads(), CPUs: pl.CPUsServer, Wrap: spec.Wrap,
			StartTimeout: pl.StartTimeout, Log: ss.serverLog, Env: env})
		if err == nil {
			srv = localServer{ls}
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("target %s: %w while starting", t.Name, ErrInterrupted)
		}
		return nil, fmt.Errorf("target %s failed to start: %w", t.Name, err)
	}
	ss.mu.Lock()
	ss.living[srv] = true
	ss.mu.Unlock()
	return srv, nil
}

// stop stops srv if it still runs (a warning when that fails).
func (ss *servers) stop(srv Server) {
	ss.mu.Lock()
	live := ss.living[srv]
	delete(ss.living, srv)
	ss.mu.Unlock()
	if live {
		if err := srv.Stop(); err != nil {
			ss.events.Warnf("stopping %s (pid %d): %v", srv.Name(), srv.Pid(), err)
		}
	}
}

// release cleans up after a server that exited when its caller asked it to (cachegrind's
// SIGTERM, so valgrind writes its file): Stop reaps its group and frees its quota, and its
// "had already exited" is what the caller expected, not a crash to warn of.
func (ss *servers) release(srv Server) {
	ss.mu.Lock()
	delete(ss.living, srv)
	ss.mu.Unlock()
	_ = srv.Stop() // only ever "had already exited": the caller saw it exit
}

// stopAll stops every server still running (the safety net behind each run's own stop).
func (ss *servers) stopAll() {
	ss.mu.Lock()
	var all []Server
	for s := range ss.living {
		all = append(all, s)
	}
	ss.mu.Unlock()
	for _, s := range all {
		ss.stop(s)
	}
}
