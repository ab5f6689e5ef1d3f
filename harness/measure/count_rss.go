package measure

import (
	"context"
	"fmt"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/scenario"
)

// RSSGrowthOptions shape an rss-growth count. Zero values take the defaults.
type RSSGrowthOptions struct {
	N            int           // responses the growth is read over, default 200,000
	Warmup       int64         // responses on the connection before the first read, default 20,000
	Reads        int           // reads of the resident set along the run, default 11
	Pipelining   int           // default 10
	StartTimeout time.Duration // 0: the plan's
	Timeout      time.Duration // paced client's dial and per-batch timeout, default 10 s
}

func (o RSSGrowthOptions) withDefaults() RSSGrowthOptions {
	orDefault(&o.N, 200000)
	orDefault(&o.Warmup, 20000)
	orDefault(&o.Reads, 11)
	orDefault(&o.Pipelining, 10)
	orDefault(&o.Timeout, 10*time.Second)
	return o
}

// RSSGrowthResult is one fresh server's resident set along a paced run.
type RSSGrowthResult struct {
	N             int
	Reads         []counters.RSSRead
	GrowthPct     float64 // counters.RSSGrowth: % of the first read per 100k responses
	ResolutionPct float64
}

// RSSGrowth counts how target's resident set grows serving sc: one fresh server, Warmup
// responses on the paced client's connection, then N more with the resident set read at Reads
// even steps (the first right after the warm-up), and a line through the reads
// (counters.GrowthPer100k). One connection keeps what the server holds per connection out of
// the figure, so what grows is what it keeps per response; its batches follow each other
// without a pause (no gap: what a server keeps does not depend on how its reads interleave with
// the client's writes, and 220,000 responses take some 2 s).
func (c Counter) RSSGrowth(ctx context.Context, target string, sc scenario.Scenario, o RSSGrowthOptions) (*RSSGrowthResult, error) {
	o = o.withDefaults()
	if o.Reads < 3 {
		return nil, fmt.Errorf("rss-growth: %d reads cannot fit a line and its error; give at least 3", o.Reads)
	}
	srv, err := c.start(ctx, target, sc, nil, nil, o.StartTimeout)
	if err != nil {
		return nil, err
	}
	defer c.r.servers.stop(srv)
	addr := srv.Addr()
	pc, err := dialPaced(ctx, addr, exchangeFor(sc, addr, c.r.backend.Requests(sc, addr)), o.Pipelining, 0, o.Timeout)
	if err != nil {
		return nil, fmt.Errorf("paced client: %w", err)
	}
	defer pc.close()
	if got, _, err := pc.run(ctx, o.Warmup); err != nil {
		return nil, fmt.Errorf("paced client, warm-up: %d of %d responses: %w", got, o.Warmup, err)
	}
	c.r.events.Emit(Status{Label: "rss-growth " + sc.Name + " " + target, Phase: fmt.Sprintf("%d responses, %d reads of the resident set", o.N, o.Reads)})
	res := &RSSGrowthResult{N: o.N}
	var done int64
	for i := range o.Reads {
		if i > 0 {
			step := int64(o.N) * int64(i) / int64(o.Reads-1)
			got, _, err := pc.run(ctx, step-done)
			if done += got; err != nil {
				return nil, fmt.Errorf("paced client: %d of %d responses: %w", done, o.N, err)
			}
		}
		u, err := srv.Usage()
		if err != nil {
			return nil, fmt.Errorf("rss-growth: the server's resident set: %w", err)
		}
		res.Reads = append(res.Reads, counters.RSSRead{Responses: done, RSSBytes: u.RSSBytes})
	}
	res.GrowthPct, res.ResolutionPct, err = counters.GrowthPer100k(res.Reads)
	return res, err
}
