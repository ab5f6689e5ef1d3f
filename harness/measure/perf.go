package measure

import (
	"errors"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
)

// Perf is what perf_event counted of the server's threads during a window.
type Perf struct {
	Totals counters.Totals
	Err    error // the counters could not be opened or read
}

// perfProbe counts the server's threads with perf_event (perf-utils) during each window; what
// this machine cannot count goes to unsupported, with the reason.
type perfProbe struct{ unsupported *Unsupported }

// syscallProbe counts the system calls and context switches of the server's threads during each
// window (one tracepoint and one software event per thread: no PMU needed); the race compares
// them per response pair by pair (stats.MetricSyscalls).
type syscallProbe struct{ unsupported *Unsupported }

// perfReading is a perf_event session over one window, stored in the window by put.
type perfReading struct {
	sess counters.PerfSession
	err  error
	put  func(*Window, *Perf)
}

func (perfProbe) Open(srv Server, _ Spec) Reading {
	sess, err := counters.StartPerf(srv.Pid())
	return &perfReading{sess: sess, err: err, put: func(w *Window, p *Perf) { w.Perf = p }}
}

func (syscallProbe) Open(srv Server, _ Spec) Reading {
	sess, err := counters.StartSyscallTotals(srv.Pid())
	return &perfReading{sess: sess, err: err, put: func(w *Window, p *Perf) { w.Syscalls = p }}
}

func (r *perfReading) Close(w *Window) error {
	p := &Perf{Err: r.err}
	if r.sess != nil {
		p.Totals, p.Err = r.sess.Stop()
	}
	r.put(w, p)
	return nil
}

// Record: the counters per response over the windows; a failure, or a counter this machine
// cannot count, is named once for the session (unsupported) instead.
func (pp perfProbe) Record(rec *session.Run, _ *Run, kept []Window) {
	sum, err := sumPerf(kept, func(w Window) *Perf { return w.Perf })
	switch {
	case err != nil:
		pp.unsupported.Mark(profile.CountersPerf, err.Error())
	case sum.Values != nil:
		rec.Counters = counters.PerResponse(sum, rec.Responses)
		for k, why := range sum.Unsupported {
			pp.unsupported.Mark(k, why)
		}
	}
}

// Record: system calls and context switches per response over the windows; where the
// tracepoints cannot be opened, the reason is named once for the session instead.
func (sp syscallProbe) Record(rec *session.Run, _ *Run, kept []Window) {
	sum, err := sumPerf(kept, func(w Window) *Perf { return w.Syscalls })
	if err != nil {
		sp.unsupported.Mark(counters.Syscalls, err.Error())
		return
	}
	if why, ok := sum.Unsupported[counters.Syscalls]; ok {
		sp.unsupported.Mark(counters.Syscalls, why)
		return
	}
	if n, ok := sum.Values[counters.Syscalls]; ok && rec.Responses > 0 {
		rec.SyscallsPerResponse = round.Readable(n / float64(rec.Responses))
		rec.ContextSwitchesPerResponse = round.Readable(sum.Values[counters.ContextSwitches] / float64(rec.Responses))
	}
}

// sumPerf adds up one probe's counts (pick) over the kept windows that closed with them, and
// joins the errors of those that could not count.
func sumPerf(kept []Window, pick func(Window) *Perf) (counters.Totals, error) {
	var sum counters.Totals
	var errs error
	for _, w := range kept {
		p := pick(w)
		if p == nil {
			continue
		}
		errs = errors.Join(errs, p.Err)
		if !w.Closed || p.Err != nil || p.Totals.Values == nil {
			continue
		}
		if sum.Values == nil {
			sum = counters.Totals{Values: map[string]float64{}, Unsupported: map[string]string{}}
		}
		for k, v := range p.Totals.Values {
			sum.Values[k] += v
		}
		for k, v := range p.Totals.Unsupported {
			sum.Unsupported[k] = v
		}
		sum.Window += p.Totals.Window
	}
	return sum, errs
}

// unsupported are the counters a session could not read, with the reason: what the summary's
// counters_unsupported says.
// Unsupported are the counters (and counters modes) a session could not read, each with why.
// Probes mark them as they fail; the session's summary records them.
type Unsupported struct {
	mu sync.Mutex
	m  map[string]string
}

func (u *Unsupported) Mark(name, why string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		u.m = map[string]string{}
	}
	u.m[name] = why
}

// sorted is a copy (nil when empty), its keys inserted in order.
func (u *Unsupported) Sorted() map[string]string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(u.m))
	for k := range u.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		out[k] = u.m[k]
	}
	return out
}

// GeneratorCPU is this process's CPU time during a window: the load generator's, which runs
// here (a scale's client_cpu_pct).
type GeneratorCPU struct {
	CPU, Wall float64 // seconds
}

// Pct is the generator's CPU in % of one core.
func (g GeneratorCPU) Pct() float64 {
	if g.Wall <= 0 {
		return 0
	}
	return round.To(g.CPU/g.Wall*100, 2)
}

// generatorProbe reads this process's CPU time (getrusage) at a window's edges.
type generatorProbe struct{}

type generatorReading struct {
	cpu float64
	at  time.Time
}

func (generatorProbe) Open(Server, Spec) Reading {
	return &generatorReading{cpu: selfCPU(), at: time.Now()}
}

func (r *generatorReading) Close(w *Window) error {
	cpu, at := selfCPU(), time.Now()
	w.Generator = &GeneratorCPU{CPU: cpu - r.cpu, Wall: at.Sub(r.at).Seconds()}
	return nil
}

// Record: a scale's session reads the generator's CPU from the run's window itself.
func (generatorProbe) Record(*session.Run, *Run, []Window) {}

// selfCPU is this process's user + system time in seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
