package measure

import (
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/procfs"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// Window is one measured window of a run: what the load generator counted, and each probe's
// part (nil when the probe did not read it).
type Window struct {
	Index int // in its run, from 0; in a pair, its round (set-aside rounds counted)
	// Load is the load generator's result over the window (nil when the load failed before
	// any result).
	Load *load.Result
	// Opened and Closed say the measured window began and ended (the load generator's
	// MeasureStart and MeasureEnd came); a window cut short is not Closed. At is when it opened.
	Opened, Closed bool
	At             time.Time
	// Seconds is the load generator's rate in each second of the window, as its progress
	// reported it (from the first full second).
	Seconds []float64

	Usage     *Usage        // the server's CPU and RSS
	Counts    *Counts       // the server's own counts (its info route)
	Machine   *MachineTime  // the whole machine: busy and stolen time
	Perf      *Perf         // perf_event counters of the server's threads
	Syscalls  *Perf         // the server's threads' system calls and context switches (tracepoints)
	DB        *DBWindow     // PostgreSQL and the load generator, database scenarios only
	Generator *GeneratorCPU // the load generator's own CPU (scale sessions)
	Node      *NodeWindow   // a node target's runtime: its threads' ELU, heap and GC pauses
	GoGC      *GoGCWindow   // a traced Go server's collections (a user's Go target)

	// SetAside is why the window was set aside, with its partner, by the pair's AfterRound
	// hook ("" when it counts). A set-aside window stays here and in the run's record, marked,
	// and is left out of every figure.
	SetAside string
}

// Kept reports whether the window counts: it has a load result and was not set aside.
func (w Window) Kept() bool { return w.Load != nil && w.SetAside == "" }

// Run is one server process measured in one or more windows (a pair's side). Its Record is the
// session's record of it; Windows are the typed results it was made from.
type Run struct {
	Spec Spec
	// Busy and Steal are the machine in the sample before the run (a pair shares one): the
	// share of all CPUs' time not idle, and stolen by the hypervisor.
	Busy, Steal float64
	Prepared    time.Duration // readying the run before its server started (a database scenario's reset)
	Startup     time.Duration // spawn to first valid response
	Windows     []Window
	// Final is what the server said of itself after its windows (peak RSS, heap, threads);
	// Finished false when the run did not get that far.
	Final    Final
	Finished bool
	// Sample is where the server's CPU time went over the windows (the sample probe's), or
	// SampleErr why it could not be sampled.
	Sample    *counters.SampleTable
	SampleErr string
	// Ran is false for a run of a pair that never started because its partner failed first
	// (its Record says so).
	Ran bool
	Err error
	// Record is the run as the session files keep it, made from the above when the run ended.
	Record session.Run
}

// Final is what is read of a server after its windows, under no load.
type Final struct {
	Usage    procfs.Usage
	UsageErr error
	Info     targets.Info
	InfoErr  error
}

// Kept are the windows that count.
func (r Run) Kept() []Window {
	var out []Window
	for _, w := range r.Windows {
		if w.Kept() {
			out = append(out, w)
		}
	}
	return out
}

// OpenLoop reports whether the run was an open loop (the load generator kept a schedule).
func (r Run) OpenLoop() bool {
	for _, w := range r.Kept() {
		if w.Load.Open != nil {
			return true
		}
	}
	return false
}

// ClientBoundFraction: a server using less than this share of its allotted cores during the
// window was not saturated, so the load generator limited the run.
const ClientBoundFraction = 0.90

// ClientBound decides whether the load generator, not the server, limited run: its server used
// under ClientBoundFraction of the cores allotted to it (allottedCores, already scaled by a CPU
// cap) over the kept windows. An open loop is never client-bound (the rate, not the client, set
// the pace), nor is a run cut short (it says nothing about saturation), nor one whose server's
// CPU was not read. A database-scenario run needs more (record.go, databasePaced): that the
// load generator was its bottleneck.
func ClientBound(run Run, allottedCores float64) bool {
	if run.Err != nil || run.OpenLoop() {
		return false
	}
	pct, _, ok := serverCPU(run.Kept())
	return ok && pct < ClientBoundFraction*100*allottedCores
}
