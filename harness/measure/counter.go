package measure

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// Counter runs a session's counting runs, outside any pair: one fresh server of a rig's target
// at a time, on the plan's server CPUs and threads, started by the rig as every other run is,
// and driven by the paced client (paced.go) or one live window. A count is what the server does
// per response under a wrapper (valgrind: Cachegrind) or a probe (the system calls:
// PacedSyscalls; perf_event counters: Perf).
type Counter struct{ r *Rig }

// Counter is the rig's counting runs.
func (r *Rig) Counter() Counter { return Counter{r} }

// CheckValgrind is the counting step's preflight: valgrind found, executable and able to run
// a program here (the CPUID probe, whose plan every count then reuses), or a
// *counters.ValgrindError saying which of the three it is not.
func (c Counter) CheckValgrind(ctx context.Context) error {
	_, err := counters.ValgrindCPU(ctx, "valgrind")
	return err
}

// start starts target for a count of sc: wrap is its command prefix, env joins the backend's,
// startTimeout (when > 0) replaces the plan's. Counts run on this host: a wrapper and a probe
// need the server's process here.
func (c Counter) start(ctx context.Context, target string, sc scenario.Scenario, wrap, env []string, startTimeout time.Duration) (Server, error) {
	r := c.r
	t := r.targets[target]
	if t == nil {
		return nil, fmt.Errorf("target %s is not one of the session's", target)
	}
	if r.fleet != nil && r.fleet.Server != nil {
		return nil, errors.New("counts run on this host only, and this session's servers run on its server host")
	}
	if err := checkBackend(t, r.backend, sc); err != nil {
		return nil, err
	}
	pl := r.plan
	if startTimeout > 0 {
		pl.StartTimeout = startTimeout
	}
	return r.servers.start(ctx, t, pl, Spec{Target: target, Scenario: sc, Wrap: wrap}, slices.Concat(r.backend.Env(), env))
}

// checkBackend says why t cannot be counted serving sc from b, nil when it can.
func checkBackend(t *targets.Target, b backend, sc scenario.Scenario) error {
	if err := t.Refuses([]string{sc.Name}); err != nil {
		return err
	}
	if sc.Database == "" {
		return nil
	}
	if b.Requests(sc, "") == nil {
		return fmt.Errorf("%s serves from PostgreSQL: its count needs the trial database beside the server (bindrace counters and race open one)", sc.Name)
	}
	return nil
}

// errorCount is the load's errors of every kind.
func errorCount(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
