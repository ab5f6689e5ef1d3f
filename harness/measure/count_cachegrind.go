package measure

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// CachegrindOptions shape a cachegrind count. Zero values take the defaults.
type CachegrindOptions struct {
	Connections  int           // default 1: one pipelined connection keeps the batches identical
	Pipelining   int           // default 10
	StartTimeout time.Duration // default 180 s for node (uws), 90 s otherwise
	Timeout      time.Duration // the client's dial and per-batch timeout, default 60 s
	StopTimeout  time.Duration // wait for the server to exit after SIGTERM, default 120 s
	Dir          string        // where the cg.<pid> files go; "" = a temporary directory, removed
	Valgrind     string        // valgrind executable, default "valgrind" from PATH
	// Gap is the pause between batches. > 0 (default 500 µs): the paced client waits for a
	// whole batch's responses, then Gap, so every batch meets an idle server and costs it the
	// same; this is what makes the figure repeat to ~0.1-0.5%. < 0: load.Run in Count mode
	// (closed loop, no pause, Connections honoured), which races the valgrind'ed server and
	// repeats only to a few percent.
	Gap time.Duration
}

func (o CachegrindOptions) withDefaults(t *targets.Target) CachegrindOptions {
	orDefault(&o.Connections, 1)
	orDefault(&o.Pipelining, 10)
	startTimeout := 90 * time.Second
	if t.Runtime == targets.RuntimeNode {
		startTimeout = 180 * time.Second
	}
	orDefault(&o.StartTimeout, startTimeout)
	orDefault(&o.Timeout, 60*time.Second)
	orDefault(&o.StopTimeout, 120*time.Second)
	if o.Gap == 0 {
		o.Gap = 500 * time.Microsecond
	}
	if o.Valgrind == "" {
		o.Valgrind = "valgrind"
	}
	return o
}

// orDefault sets *v to def when it is not positive.
func orDefault[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Cachegrind counts target's per-response work on sc deterministically: one fresh server under
// valgrind's cachegrind (the CPU plan's wrap and switches) driven with exactly n requests, a
// second fresh one with 2n, each stopped with SIGTERM so cachegrind writes its file; their
// difference (counters.NewCachegrindResult) cancels start-up and shutdown.
func (c Counter) Cachegrind(ctx context.Context, target string, sc scenario.Scenario, n int, o CachegrindOptions) (_ *counters.CachegrindResult, err error) {
	t := c.r.targets[target]
	if n <= 0 || t == nil {
		return nil, fmt.Errorf("cachegrind: n must be > 0 (got %d) and %q one of the session's targets", n, target)
	}
	o = o.withDefaults(t)
	plan, err := counters.ValgrindCPU(ctx, o.Valgrind)
	if err != nil {
		return nil, fmt.Errorf("cachegrind: %w", err)
	}
	dir, err := countDir(o.Dir)
	if err != nil {
		return nil, err
	}
	if o.Dir == "" {
		// A server that died leaves its valgrind log here for the error to point at.
		defer func() {
			if !errors.As(err, new(*counters.DiedError)) {
				os.RemoveAll(dir)
			}
		}()
	}
	var runs [2]counters.CachegrindRun
	for i, count := range []int64{int64(n), 2 * int64(n)} {
		runDir := filepath.Join(dir, fmt.Sprintf("%s-%s-%d", session.SafeName(target), sc.Name, count))
		if err := os.MkdirAll(runDir, 0o755); err != nil {
			return nil, err
		}
		c.r.events.Emit(Status{Label: "cachegrind " + sc.Name + " " + target, Phase: fmt.Sprintf("run %d/2, %d requests (under valgrind, start-up is slow)", i+1, count)})
		run, err := c.cachegrindRun(ctx, target, sc, count, runDir, plan, o)
		if err != nil {
			return nil, fmt.Errorf("cachegrind %s %s, run with %d requests: %w", target, sc.Name, count, err)
		}
		if o.Dir == "" {
			run.File = ""
		}
		runs[i] = *run
	}
	res, err := counters.NewCachegrindResult(target, sc.Name, n, runs, &plan.CPU)
	if err != nil {
		return nil, fmt.Errorf("cachegrind %s %s: %w", target, sc.Name, err)
	}
	return res, nil
}

// countDir is where a count's runs write: dir, made if need be, or a new temporary one.
func countDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "bindrace-cachegrind-")
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// cachegrindRun is one run in dir. A server that died under valgrind surfaces as whatever its
// death broke first (start-up, a reset connection, no out file); valgrind's log says what
// happened, so that is the error.
func (c Counter) cachegrindRun(ctx context.Context, target string, sc scenario.Scenario, count int64, dir string, plan *counters.CPUPlan, o CachegrindOptions) (*counters.CachegrindRun, error) {
	run, err := c.serveCounted(ctx, target, sc, count, dir, plan, o)
	if d := counters.DiedIn(dir); d != nil {
		return nil, d
	}
	return run, err
}

// serveCounted starts the server under valgrind with the plan's switches, drives it with count
// requests, stops it and reads its out file.
func (c Counter) serveCounted(ctx context.Context, target string, sc scenario.Scenario, count int64, dir string, plan *counters.CPUPlan, o CachegrindOptions) (*counters.CachegrindRun, error) {
	srv, err := c.start(ctx, target, sc, plan.Wrap(dir), append(counters.ValgrindEnv, plan.Env...), o.StartTimeout)
	if err != nil {
		return nil, fmt.Errorf("under valgrind: %w", err)
	}
	exited := false // on the SIGTERM below: nothing left to stop
	defer func() {
		if exited {
			c.r.servers.release(srv)
		} else {
			c.r.servers.stop(srv)
		}
	}()
	addr := srv.Addr()
	build := c.r.backend.Requests(sc, addr)
	run := &counters.CachegrindRun{Requests: count, StartupS: srv.Startup().Seconds()}
	if o.Gap > 0 {
		got, elapsed, err := pacedRun(ctx, addr, exchangeFor(sc, addr, build), count, o.Pipelining, o.Gap, o.Timeout)
		if err != nil {
			return nil, fmt.Errorf("paced client: %d of %d responses: %w", got, count, err)
		}
		run.Responses, run.ElapsedS = got, elapsed.Seconds()
	} else {
		cfg := load.ForScenario(sc, addr)
		cfg.Build = build
		cfg.Connections, cfg.Pipelining, cfg.Workers, cfg.Count, cfg.Timeout = o.Connections, o.Pipelining, 1, count, o.Timeout
		res, err := load.Run(ctx, cfg, load.Hooks{})
		if err != nil {
			return nil, fmt.Errorf("load: %w", err)
		}
		if errs := errorCount(res.Errors); errs > 0 || res.Responses != count {
			return nil, fmt.Errorf("load: %d of %d responses, errors %v: the difference would not be %d requests' worth", res.Responses, count, res.Errors, count)
		}
		run.Responses, run.ElapsedS = res.Responses, res.Elapsed.Seconds()
	}

	// Graceful stop so valgrind runs cachegrind's exit and writes the file: SIGTERM, then wait
	// (a valgrind'ed exit takes seconds) before the stop's SIGKILL could cut it short.
	if err := terminate(srv.Pid()); err != nil {
		return nil, fmt.Errorf("SIGTERM server pid %d: %w", srv.Pid(), err)
	}
	select {
	case <-srv.Exited():
		exited = true
	case <-time.After(o.StopTimeout):
		return nil, fmt.Errorf("server pid %d did not exit within %s of SIGTERM; cachegrind writes its file only at exit", srv.Pid(), o.StopTimeout)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return run, counters.ReadOutFile(dir, srv.Pid(), run)
}

// terminate sends SIGTERM to the server's process group (a server starts in its own), or to the
// process alone when it has no group of its own.
func terminate(pid int) error {
	if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
		return syscall.Kill(-pid, syscall.SIGTERM)
	}
	err := syscall.Kill(pid, syscall.SIGTERM)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone; Exited will say so
	}
	return err
}
