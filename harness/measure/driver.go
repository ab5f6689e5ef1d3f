package measure

import (
	"context"
	"time"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/load"
)

// driver drives one run's load against its server: harness/load here (or wrk, with loadgen
// wrk, for HTTP scenarios), or one load generator per client host of the fleet, merged. A
// WebSocket scenario's Result counts echoed messages, so its RPS is messages/s.
type driver struct {
	cfg    load.Config // the load here
	run    func(context.Context, load.Config, load.Hooks) (*load.Result, error)
	fleet  *fleet.Fleet // with client hosts: the timed loads run there
	remote fleet.Drive  // what they run
}

// newDriver is spec's driver against addr; requests, when not nil, renders each request (a
// database scenario's ids).
func newDriver(pl Plan, spec Spec, addr string, fl *fleet.Fleet, requests load.BuildFunc) *driver {
	d := &driver{run: load.Run}
	d.cfg = load.Config{Addr: addr, Requests: [][]byte{spec.Scenario.Request(addr)}, Connections: spec.Connections,
		Pipelining: spec.Pipelining, Workers: pl.ClientWorkers(), Timeout: 10 * time.Second, Rate: spec.Rate, LagTolerance: pl.LagTolerance}
	switch {
	case requests != nil:
		d.cfg.Requests, d.cfg.Build = nil, requests
	case spec.Scenario.WebSocket():
		d.cfg.Protocol, d.cfg.Requests, d.cfg.Host, d.cfg.Path, d.cfg.Size = load.WebSocket, nil, addr, spec.Scenario.Path, len(spec.Scenario.Body)
	case pl.Loadgen == "wrk":
		d.run = load.RunWrk
	}
	if fl != nil && len(fl.Clients) > 0 {
		// The load a local run drives (its rate too), each host with its own workers unless
		// the plan sets them.
		d.fleet = fl
		d.remote = fleet.Drive{Config: d.cfg}
		d.remote.Config.Workers = pl.Workers
	}
	return d
}

// drive runs one load: warmup (excluded from every figure), then a measured window of
// duration, the hooks called as it opens and closes.
func (d *driver) drive(ctx context.Context, warmup, duration time.Duration, h load.Hooks) (*load.Result, error) {
	if d.fleet != nil {
		rd := d.remote
		rd.Config.Warmup, rd.Config.Duration = warmup, duration
		res, _, err := d.fleet.RunLoad(ctx, rd, h)
		return res, err
	}
	cfg := d.cfg
	cfg.Warmup, cfg.Duration = warmup, duration
	return d.run(ctx, cfg, h)
}

// count sends exactly n requests with the built-in load generator, here.
func (d *driver) count(ctx context.Context, n int64) (*load.Result, error) {
	cfg := d.cfg
	cfg.Count = n
	return load.Run(ctx, cfg, load.Hooks{})
}
