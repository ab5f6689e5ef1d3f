package measure

import (
	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
)

// attacher is a probe with a part that lives as long as its server: attached once the server
// is verified (for what is too slow for a window's start, such as spawning perf record), read
// in each window through its Reading, and detached after the last window, before the server
// stops.
type attacher interface {
	Probe
	attach(srv Server, spec Spec) attachment
}

// attachment is an attacher's part on one server.
type attachment interface {
	open() Reading   // as a window opens
	detach(run *Run) // after the last window: what it read goes into run
	abandon()        // the run failed: stop without reading
}

// Sampled CPU time in a run's record: this many of the functions and system calls that took
// the most, and every activity (the whole table is in `bindrace counters --mode perf --sample`).
const (
	sampledFunctions = 10
	sampledSyscalls  = 5
)

// sampleProbe samples the server's threads with perf record -e cpu-clock -g (a software event:
// no PMU) while its windows are open, perf itself on the client's CPUs. The sampler is one perf
// process per server, so every window of the run is in its table, a set-aside one too: the
// table is CPU time per response of the windows sampled.
type sampleProbe struct {
	unsupported *Unsupported
	cpus        string // where perf runs
}

// Open: the sampler is the attachment's (attach), nothing to start per window here.
func (sampleProbe) Open(Server, Spec) Reading { return nil }

func (p sampleProbe) attach(srv Server, _ Spec) attachment {
	return &sampleAttachment{s: counters.StartSampling(srv.Pid(), &counters.SamplerOptions{CPUs: p.cpus})}
}

// Record: the run's sampled table, or the reason there is none, named once for the session.
func (p sampleProbe) Record(rec *session.Run, run *Run, _ []Window) {
	switch {
	case run.SampleErr != "":
		p.unsupported.Mark(profile.CountersSample, run.SampleErr)
	case run.Sample != nil:
		rec.Sample = sampledOf(run.Sample)
	}
}

// sampleAttachment is one server's sampler.
type sampleAttachment struct{ s *counters.Sampling }

func (a *sampleAttachment) open() Reading {
	a.s.Enable()
	return sampleReading{a.s}
}

func (a *sampleAttachment) detach(run *Run) {
	var responses int64
	for _, w := range run.Windows {
		if w.Load != nil && w.Closed {
			responses += w.Load.Responses
		}
	}
	run.Sample, run.SampleErr = a.s.Finish(responses)
}

func (a *sampleAttachment) abandon() { a.s.Close() }

// sampleReading turns the samples off as the window closes.
type sampleReading struct{ s *counters.Sampling }

func (r sampleReading) Close(*Window) error {
	r.s.Disable()
	return nil
}

// sampledOf keeps a sample table's totals and its first rows for the session.
func sampledOf(t *counters.SampleTable) *session.Sampled {
	rows := func(rs []counters.SampleRow, n int) []session.SampledRow {
		out := []session.SampledRow{}
		for _, r := range rs[:min(n, len(rs))] {
			out = append(out, session.SampledRow{Name: r.Name, Kernel: r.Kernel, NsPerResponse: r.NsPerResponse, SharePct: r.SharePct})
		}
		return out
	}
	return &session.Sampled{Samples: t.Samples, PeriodNs: t.PeriodNs, NsPerResponse: t.NsPerResponse, UserNs: t.UserNs,
		KernelNs: t.KernelNs, KernelPct: t.KernelPct, Functions: rows(t.Functions, sampledFunctions), Syscalls: rows(t.Syscalls, sampledSyscalls),
		Activities: rows(t.Activities, len(t.Activities))}
}
