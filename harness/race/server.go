package race

import (
	"context"
	"errors"
	"time"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/targets"
)

// server is a started target's scenario server, here (targets.Server) or on the fleet's
// server host (fleet.Server): what a run reads of it and how it ends.
type server interface {
	Addr() string
	Usage() (procfs.Usage, error)
	Info() (targets.Info, error)
	Exited() <-chan struct{}
	ExitError() error
	Stop() error
	name() string
	pid() int
	startup() time.Duration
}

type localServer struct{ *targets.Server }

func (s localServer) name() string           { return s.Target }
func (s localServer) pid() int               { return s.Pid }
func (s localServer) startup() time.Duration { return s.Startup }

type remoteServer struct{ *fleet.Server }

func (s remoteServer) name() string           { return s.Target }
func (s remoteServer) pid() int               { return s.Pid }
func (s remoteServer) startup() time.Duration { return s.Startup }

// startRemote starts name on the fleet's server host with the plan's threads.
func (e *engine) startRemote(ctx context.Context, name string) (server, error) {
	srv, err := e.fleet.StartServer(ctx, name, e.plan.serverThreads(), e.plan.StartTimeout)
	if err != nil {
		return nil, err
	}
	return remoteServer{srv}, nil
}

// remoteDriver drives rs's load from the fleet's client hosts, one generator each, merged: the
// load a local run drives (its rate too), each host with its own workers unless the plan sets them.
func (e *engine) remoteDriver(rs runSpec, addr string) func(ctx context.Context, warmup, duration time.Duration, h load.Hooks) (*load.Result, error) {
	cfg, _ := e.loadConfig(rs, addr)
	cfg.Workers = e.plan.Workers
	return func(ctx context.Context, warmup, duration time.Duration, h load.Hooks) (*load.Result, error) {
		cfg.Warmup, cfg.Duration = warmup, duration
		res, _, err := e.fleet.RunLoad(ctx, fleet.Drive{Config: cfg}, h)
		return res, err
	}
}

// checkRemote holds a session with a fleet to what runs on other hosts: cachegrind counters
// stay local (valgrind runs the server here), perf_event counters read local pids only, and
// load generators on other hosts need the server on one too (a local server listens on
// loopback).
func checkRemote(o *Options, pl *Plan) error {
	if o.Fleet == nil {
		return nil
	}
	if o.Profile.Has(profile.CountersCachegrind) || pl.Perf {
		return errors.New("counters stay local: with --server-host or --client-hosts use --counters none (bindrace counters measures a local server)")
	}
	if o.Fleet.Server == nil && len(o.Fleet.Clients) > 0 {
		return errors.New("--client-hosts needs --server-host: a local server listens on loopback only")
	}
	if pl.Loadgen == "wrk" && len(o.Fleet.Clients) > 0 {
		return errors.New("--loadgen wrk runs here only; --client-hosts runs bindrace load on each host")
	}
	return nil
}
