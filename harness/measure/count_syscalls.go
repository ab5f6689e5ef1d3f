package measure

import (
	"context"
	"fmt"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/scenario"
)

// PacedSyscallOptions shape a paced system-call count. Zero values take the defaults.
type PacedSyscallOptions struct {
	N            int           // requests in the counted window, default counters.DefaultN
	Warmup       int64         // requests on the same connection before the window, default 1000
	Pipelining   int           // default 10
	Gap          time.Duration // pause between batches, default 500 µs
	StartTimeout time.Duration // 0: the plan's
	Timeout      time.Duration // paced client's dial and per-batch timeout, default 10 s
}

func (o PacedSyscallOptions) withDefaults() PacedSyscallOptions {
	orDefault(&o.N, counters.DefaultN)
	orDefault(&o.Warmup, 1000)
	orDefault(&o.Pipelining, 10)
	orDefault(&o.Gap, 500*time.Microsecond)
	orDefault(&o.Timeout, 10*time.Second)
	return o
}

// windowSettle is how long the window stays open after the last answer.
const windowSettle = 5 * time.Millisecond

// PacedSyscallResult is one fresh server's system calls over a paced window.
type PacedSyscallResult struct {
	N      int
	Totals counters.Totals
	Table  *counters.SyscallTable
}

// PacedSyscalls counts target's system calls per response for sc under the paced client (one
// connection, batches of Pipelining requests, a Gap between them). Every batch then meets an
// idle server, so the calls it costs are fixed by the protocol rather than by how the client
// and the server happened to interleave: the figure is meant to repeat, as instruction counts
// do. One fresh server: start, Warmup requests on the connection, the probe on for exactly N
// requests on the same connection (no accept, no handshake inside the window), stop.
func (c Counter) PacedSyscalls(ctx context.Context, target string, sc scenario.Scenario, o PacedSyscallOptions) (*PacedSyscallResult, error) {
	o = o.withDefaults()
	srv, err := c.start(ctx, target, sc, nil, nil, o.StartTimeout)
	if err != nil {
		return nil, err
	}
	defer c.r.servers.stop(srv)
	addr := srv.Addr()
	pc, err := dialPaced(ctx, addr, exchangeFor(sc, addr, c.r.backend.Requests(sc, addr)), o.Pipelining, o.Gap, o.Timeout)
	if err != nil {
		return nil, fmt.Errorf("paced client: %w", err)
	}
	defer pc.close()
	if got, _, err := pc.run(ctx, o.Warmup); err != nil {
		return nil, fmt.Errorf("paced client, warm-up: %d of %d responses: %w", got, o.Warmup, err)
	}
	c.r.events.Emit(Status{Label: "syscalls " + sc.Name + " " + target, Phase: fmt.Sprintf("counting %d requests, pipelining %d, gap %s", o.N, o.Pipelining, o.Gap)})
	probe, err := counters.OpenSyscalls(srv.Pid())
	if err != nil {
		return nil, fmt.Errorf("syscalls: %w", err)
	}
	time.Sleep(o.Gap) // the server is idle again after the warm-up's last batch
	probe.Enable()
	sent0, recv0 := pc.conn.written, pc.conn.readIn
	got, _, runErr := pc.run(ctx, int64(o.N))
	// The client has the last answer before the server has gone back to wait for the next
	// batch; give it the time to, so the last batch costs what every other one did.
	time.Sleep(windowSettle)
	tot, stopErr := probe.Stop()
	if runErr != nil {
		return nil, fmt.Errorf("paced client: %d of %d responses: %w", got, o.N, runErr)
	}
	if stopErr != nil {
		return nil, fmt.Errorf("syscalls: %w", stopErr)
	}
	res := &PacedSyscallResult{N: o.N, Totals: tot}
	res.Table = counters.NewSyscallTable(tot, got, pc.conn.written-sent0, pc.conn.readIn-recv0)
	return res, nil
}
