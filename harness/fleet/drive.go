package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/remote"
)

// Drive describes one load on the client hosts: cfg's shape (connections split across the
// hosts, each host's generator with cfg.Workers workers) against url, the scenario by name.
type Drive struct {
	URL      string // http://host:port or ws://host:port/path as the clients dial it
	Scenario string
	Config   load.Config
	// Lead is how far ahead the common start instant is planned (0: 2 s plus 0.5 s a host: the
	// generators start in parallel, but a busy host or a slow link needs the margin).
	Lead time.Duration
}

// ClientResult is one client host's part of a merged load.
type ClientResult struct {
	Host   remote.Host
	Result *load.Result
}

// RunLoad runs d's load with one `bindrace load --json` per client host, all starting at one
// instant (remote.PlanStart), calls the hooks when the common measured window opens and
// closes (in this machine's clock), and merges the clients' tallies and histograms. A host
// that fails is an error naming it; the others' results are merged all the same.
func (f *Fleet) RunLoad(ctx context.Context, d Drive, h load.Hooks) (*load.Result, []ClientResult, error) {
	if len(f.Clients) == 0 {
		return nil, nil, errors.New("fleet: no client hosts")
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
	procs, err := f.startLoads(ctx, d, plan)
	if err != nil {
		return nil, nil, err
	}
	stopHooks := windowHooks(plan.At, d.Config, h)
	defer stopHooks()
	parts, err := f.collect(ctx, procs)
	res := Merge(parts)
	if res == nil && err == nil {
		err = errors.New("fleet: no client produced a result")
	}
	return res, parts, err
}

// startLoads starts every client's generator at once; if one fails, the others are stopped.
func (f *Fleet) startLoads(ctx context.Context, d Drive, plan *remote.StartPlan) ([]*remote.Process, error) {
	procs := make([]*remote.Process, len(f.Clients))
	errs := make([]error, len(f.Clients))
	var wg sync.WaitGroup
	for i, c := range f.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			spec := remote.ProcessSpec{Name: "load", Argv: f.loadArgv(d, i, plan.Arg(c)), SeparateStdout: true}
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

// loadArgv is the i-th client's command: its share of the connections, the rest as asked.
func (f *Fleet) loadArgv(d Drive, i int, startAt string) []string {
	c := d.Config
	n := len(f.Clients)
	conns := c.Connections / n
	if i < c.Connections%n {
		conns++
	}
	argv := []string{f.bindrace(), "load", d.URL, "--json", "--start-at", startAt,
		"--connections", strconv.Itoa(max(conns, 1)), "--pipelining", strconv.Itoa(max(c.Pipelining, 1)),
		"--warmup", c.Warmup.String(), "--duration", c.Duration.String()}
	if d.Scenario != "" {
		argv = append(argv, "--scenario", d.Scenario)
	}
	if c.Workers > 0 {
		argv = append(argv, "--workers", strconv.Itoa(c.Workers))
	}
	if c.Timeout > 0 {
		argv = append(argv, "--timeout", c.Timeout.String())
	}
	return argv
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

// collect waits for every load generator and reads its JSON; failures name their host.
func (f *Fleet) collect(ctx context.Context, procs []*remote.Process) ([]ClientResult, error) {
	var parts []ClientResult
	var errs []error
	for _, p := range procs {
		code, err := p.Wait(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("load generator on host %s: %w", p.Host, err))
			p.Stop()
			continue
		}
		out, oerr := p.Output(context.WithoutCancel(ctx))
		res, perr := ParseLoadJSON(out)
		if code != 0 || oerr != nil || perr != nil {
			tail, _ := p.LogTail(context.WithoutCancel(ctx), 3)
			errs = append(errs, fmt.Errorf("load generator on host %s: exit %d: %v", p.Host, code, errors.Join(oerr, perr, errors.New(tail))))
		}
		if res != nil {
			parts = append(parts, ClientResult{Host: p.Host, Result: res})
		}
	}
	return parts, errors.Join(errs...)
}

// loadJSON is what this package reads of `bindrace load --json`.
type loadJSON struct {
	RPS          float64           `json:"rps"`
	Responses    int64             `json:"responses"`
	DurationS    float64           `json:"duration_s"`
	ErrorsByKind map[string]int64  `json:"errors_by_kind"`
	BytesRead    int64             `json:"bytes_read"`
	Reconnects   int64             `json:"reconnects"`
	Unit         string            `json:"unit"`
	Client       *load.ClientStats `json:"client"`
	Hist         string            `json:"hist"`
}

// ParseLoadJSON reads one `bindrace load --json` object back into a Result, its histogram
// decoded.
func ParseLoadJSON(b []byte) (*load.Result, error) {
	var j loadJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("load --json output: %w", err)
	}
	res := &load.Result{Responses: j.Responses, RPS: j.RPS, Elapsed: time.Duration(j.DurationS * float64(time.Second)),
		Errors: j.ErrorsByKind, BytesRead: j.BytesRead, Reconnects: j.Reconnects, Unit: j.Unit, Client: j.Client}
	if j.Hist != "" {
		h, err := hdrhistogram.Decode([]byte(j.Hist))
		if err != nil {
			return nil, fmt.Errorf("load --json histogram: %w", err)
		}
		res.Hist = h
		res.Latency = load.Summarize(h)
	}
	return res, nil
}

// Merge sums the clients' tallies over one common window: responses, errors and bytes add
// up, throughput is the sum of each client's, the histograms merge and the latencies are read
// from the merged one. nil without parts.
func Merge(parts []ClientResult) *load.Result {
	if len(parts) == 0 {
		return nil
	}
	m := &load.Result{Errors: map[string]int64{}, Hist: load.NewHistogram(), Unit: parts[0].Result.Unit}
	for _, p := range parts {
		r := p.Result
		m.Responses += r.Responses
		m.RPS += r.RPS
		m.Elapsed = max(m.Elapsed, r.Elapsed)
		m.BytesRead += r.BytesRead
		m.Reconnects += r.Reconnects
		for k, v := range r.Errors {
			m.Errors[k] += v
		}
		if r.Hist != nil {
			m.Hist.Merge(r.Hist)
		}
	}
	m.Latency = load.Summarize(m.Hist)
	return m
}
