package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/remote"
)

// Drive describes one load on the client hosts: Config's load (its Addr as the clients dial
// it), split between the hosts, each running its share with Config.Workers workers (0: the
// host's CPUs).
type Drive struct {
	Config load.Config
	// Lead is how far ahead the common start instant is planned (0: 2 s plus 0.5 s a host: the
	// generators start in parallel, but a busy host or a slow link needs the margin).
	Lead time.Duration
}

// ClientResult is one client host's part of a merged load.
type ClientResult struct {
	Host   remote.Host
	Result *load.Result
}

// RunLoad runs d's load with one `bindrace load --config - --json` per client host, its share
// of the load as JSON on its stdin (load.EncodeConfig), all starting at one instant
// (remote.PlanStart); it calls the hooks when the common measured window opens and closes (in
// this machine's clock), and merges the clients' results (load.Merge: tallies, histograms, an
// open loop's rates and send lag). A host that fails is an error naming it; the others'
// results are merged all the same.
func (f *Fleet) RunLoad(ctx context.Context, d Drive, h load.Hooks) (*load.Result, []ClientResult, error) {
	if len(f.Clients) == 0 {
		return nil, nil, errors.New("fleet: no client hosts")
	}
	if d.Config.Count > 0 {
		return nil, nil, errors.New("fleet: a load of a count of requests has no window to share between hosts")
	}
	configs, err := f.shares(d.Config)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range f.Clients {
		if err := f.copySelf(ctx, c); err != nil {
			return nil, nil, err
		}
	}
	lead := d.Lead
	if lead <= 0 {
		lead = 2*time.Second + time.Duration(len(f.Clients))*500*time.Millisecond
	}
	plan, err := f.r.PlanStart(ctx, f.Clients, lead)
	if err != nil {
		return nil, nil, err
	}
	procs, err := f.startLoads(ctx, configs, plan)
	if err != nil {
		return nil, nil, err
	}
	stopHooks := windowHooks(plan.At, d.Config, h)
	defer stopHooks()
	length := d.Config.Warmup + d.Config.Duration
	parts, err := f.collect(ctx, procs, plan.At.Add(length), length+resultGrace)
	res := load.Merge(results(parts))
	if res == nil && err == nil {
		err = errors.New("fleet: no client produced a result")
	}
	return res, parts, err
}

// startLoads starts every client's generator on its config at once; if one fails, the others
// are stopped.
func (f *Fleet) startLoads(ctx context.Context, configs [][]byte, plan *remote.StartPlan) ([]*remote.Process, error) {
	procs := make([]*remote.Process, len(f.Clients))
	errs := make([]error, len(f.Clients))
	var wg sync.WaitGroup
	for i, c := range f.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec := remote.ProcessSpec{Name: "load", Argv: []string{f.bindrace(), "load", "--config", "-", "--json", "--start-at", plan.Arg(c)},
				Stdin: configs[i], SeparateStdout: true}
			procs[i], errs[i] = f.s.Start(ctx, c, spec)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, p := range procs {
			if p != nil {
				p.Stop()
			}
		}
		return nil, err
	}
	return procs, nil
}

// shares is c split between the client hosts, each host's as JSON: its share of the
// connections (at least one) and of an open loop's rate, the rest as asked.
func (f *Fleet) shares(c load.Config) ([][]byte, error) {
	n := len(f.Clients)
	out := make([][]byte, n)
	for i := range out {
		share := c
		share.Connections = c.Connections / n
		if i < c.Connections%n {
			share.Connections++
		}
		share.Connections = max(share.Connections, 1)
		share.Rate = c.Rate / float64(n)
		b, err := load.EncodeConfig(share)
		if err != nil {
			return nil, fmt.Errorf("fleet: %w", err)
		}
		out[i] = b
	}
	return out, nil
}

// windowHooks calls h.MeasureStart and h.MeasureEnd, in that order from one goroutine, when
// the clients' common window opens and closes in this machine's clock. The returned function
// ends it: an end not yet called is called then (the clients are done), so a window opened is
// always closed.
func windowHooks(at time.Time, c load.Config, h load.Hooks) func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	wait := func(t time.Time) bool {
		timer := time.NewTimer(time.Until(t))
		defer timer.Stop()
		select {
		case <-timer.C:
			return true
		case <-stop:
			return false
		}
	}
	go func() {
		defer close(done)
		if !wait(at.Add(c.Warmup)) {
			return
		}
		if h.MeasureStart != nil {
			h.MeasureStart()
		}
		wait(at.Add(c.Warmup + c.Duration))
		if h.MeasureEnd != nil {
			h.MeasureEnd()
		}
	}()
	return func() {
		close(stop)
		<-done
	}
}

// readResult reads a generator's `bindrace load --json` output (load.DecodeOutput: every
// figure checked) into its Result.
func readResult(out []byte) (*load.Result, error) {
	o, err := load.DecodeOutput(out)
	if err != nil {
		return nil, err
	}
	if o.Incomplete != "" {
		res, _ := o.Result()
		return res, fmt.Errorf("load output: incomplete: %s", o.Incomplete)
	}
	return o.Result()
}

// resultGrace is how long after the common window closes a generator has to end and print its
// result: it closes its connections (a second at most), prints, exits, and the host reports it
// over ssh. A generator not done by then, and by as long again as its load, hangs: a busy host
// (a 2-CPU lab at a load average of 20) is slow at all of it, in proportion.
const resultGrace = 30 * time.Second

// collect waits for every load generator until grace after the loads' end (in this machine's
// clock), stopping one that hangs, and reads its JSON; failures name their host and what it
// did. A result that reads well is kept even when its host failed otherwise.
func (f *Fleet) collect(ctx context.Context, procs []*remote.Process, end time.Time, grace time.Duration) ([]ClientResult, error) {
	wctx, cancel := context.WithDeadline(ctx, end.Add(grace))
	defer cancel()
	for _, p := range procs {
		p.Exited() // every watcher at once: one host's end is not read after another's wait
	}
	var parts []ClientResult
	var errs []error
	for _, p := range procs {
		res, err := collectOne(ctx, wctx, p, grace)
		if err != nil {
			errs = append(errs, fmt.Errorf("load generator on host %s: %w", p.Host, err))
		}
		if res != nil {
			parts = append(parts, ClientResult{Host: p.Host, Result: res})
		}
	}
	return parts, errors.Join(errs...)
}

// collectOne waits for p (until wctx ends, grace after its load's end) and reads its result.
func collectOne(ctx, wctx context.Context, p *remote.Process, grace time.Duration) (*load.Result, error) {
	bg := context.WithoutCancel(ctx)
	code, err := p.Wait(wctx)
	hung := ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded)
	if hung {
		if alive, aerr := p.Alive(bg); aerr == nil && !alive {
			code, err = p.Wait(ctx) // it ended meanwhile, and its watcher was slow to say how
			hung = false
		}
	}
	if err != nil {
		p.Stop()
		if hung {
			return nil, fmt.Errorf("no result %s after its load's end: it hangs (stopped)", grace)
		}
		return nil, err
	}
	out, err := p.Output(bg)
	if err != nil {
		return nil, err
	}
	res, err := readResult(out)
	if code != 0 {
		tail, _ := p.LogTail(bg, 3)
		err = fmt.Errorf("exit %d: %s", code, oneLine(tail, err))
	}
	return res, err
}

// oneLine is a log tail and an error on one line.
func oneLine(tail string, err error) string {
	parts := strings.Fields(strings.ReplaceAll(strings.TrimSpace(tail), "\n", " | "))
	s := strings.Join(parts, " ")
	if err != nil {
		s = strings.TrimPrefix(s+"; "+err.Error(), "; ")
	}
	return s
}

// results are the parts' Results.
func results(parts []ClientResult) []*load.Result {
	rs := make([]*load.Result, len(parts))
	for i, p := range parts {
		rs[i] = p.Result
	}
	return rs
}
