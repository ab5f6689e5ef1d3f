package measure

import (
	"runtime"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/setting"
)

// Plan is how every run of a session is measured: the profile's Method with the CPU split
// resolved for this machine, and what the profile does not say.
type Plan struct {
	profile.Method
	Perf     bool // perf_event counters per window (the perf probe)
	Syscalls bool // system calls per window (the syscall probe)
	Sample   bool // where the server's CPU time went, sampled over its windows (the sample probe)
	// StartTimeout bounds spawn-to-first-valid-response (uws needs node to start).
	StartTimeout time.Duration
	// LagTolerance: open loops mark a run generator-bound when its send lag p99 exceeds it;
	// 0 = the load generator's default, 1 ms.
	LagTolerance time.Duration
}

// NewPlan is the plan of a profile: its method, the server and client CPUs filled in where the
// profile leaves them to this machine (machine.DefaultCPUs, or the complement of the one given).
func NewPlan(p *profile.Profile) (Plan, error) {
	pl := Plan{Method: p.Method, Perf: p.Has(profile.CountersPerf), Syscalls: p.Has(profile.CountersSyscalls),
		Sample: p.Has(profile.CountersSample), StartTimeout: 30 * time.Second}
	for _, f := range []struct{ name, list string }{{"cpus_server", pl.CPUsServer}, {"cpus_client", pl.CPUsClient}} {
		if err := machine.CheckCPUs(f.list); err != nil {
			return pl, setting.Errorf("{"+f.name+"} %q: %v", f.list, err)
		}
	}
	switch {
	case pl.CPUsServer == "" && pl.CPUsClient == "":
		pl.CPUsServer, pl.CPUsClient = machine.DefaultCPUs(runtime.NumCPU())
	case pl.CPUsClient == "":
		pl.CPUsClient = machine.Complement(pl.CPUsServer, runtime.NumCPU())
		if pl.CPUsClient == "" { // the server has every CPU: the client shares them
			pl.CPUsClient = pl.CPUsServer
		}
	case pl.CPUsServer == "":
		pl.CPUsServer = machine.Complement(pl.CPUsClient, runtime.NumCPU())
	}
	return pl, nil
}

// ServerThreads is the thread count passed to a server.
func (p Plan) ServerThreads() int {
	if p.Threads > 0 {
		return p.Threads
	}
	return machine.CountCPUs(p.CPUsServer)
}

// AllottedCores is how many cores the server could keep busy: its CPUs, or fewer threads.
func (p Plan) AllottedCores() float64 {
	n := machine.CountCPUs(p.CPUsServer)
	if t := p.ServerThreads(); t > 0 && t < n {
		n = t
	}
	return float64(n)
}

// ClientWorkers caps the workers to the client's CPUs (release-linux asks for 4; a 2-core
// machine has one client CPU).
func (p Plan) ClientWorkers() int {
	w := p.Workers
	if w <= 0 {
		w = 1
	}
	if n := machine.CountCPUs(p.CPUsClient); w > n {
		w = n
	}
	return w
}

// of is the plan for spec: its own server threads and CPUs where it sets them (a scale's
// points).
func (p Plan) of(spec Spec) Plan {
	if spec.Threads > 0 {
		p.Threads = spec.Threads
	}
	if spec.CPUs != "" {
		p.CPUsServer = spec.CPUs
	}
	return p
}

// Spec says what one run measures.
type Spec struct {
	Target      string
	Scenario    scenario.Scenario
	Connections int
	Pipelining  int
	Rate        float64 // > 0: an open loop at this many requests per second in all
	Slot        int     // position within its pair, round or point, from 0 (recorded)
	Label       string  // for progress: "pair 3/10 AB binding"
	// Threads and CPUs override the plan's server threads and CPUs for this run (0, "": the
	// plan's).
	Threads int
	CPUs    string
	Wrap    []string // the server's command prefix, e.g. setarch -R (noise)
}

// Unit is what a run of sc measures per second, as progress and log lines print it.
func Unit(sc scenario.Scenario) string {
	if u := UnitOf(sc); u != "" {
		return u
	}
	return "rps"
}

// UnitOf is the Unit a session of sc records: "" for HTTP (responses/s, the default),
// "messages/s" for WebSocket scenarios.
func UnitOf(sc scenario.Scenario) string {
	if sc.WebSocket() {
		return load.UnitMessages
	}
	return ""
}
