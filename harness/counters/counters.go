// Package counters reads per-response counters of a scenario server, and where they go.
//
// Modes (docs/counters.md explains every table):
//
//   - perf: perf_event counters (through github.com/hodgesds/perf-utils) on every thread of the
//     server process, threads created later included, enabled only for the load generator's
//     measurement window (StartPerf at Hooks.MeasureStart, PerfSession.Stop at Hooks.MeasureEnd)
//     and divided by the responses counted in that window (PerResponse). Hardware counters
//     (cycles, instructions, branches, …) need a PMU; where the host has none (most VMs) each
//     one lands in Totals.Unsupported with the reason the kernel gave, never as a zero. Software
//     counters (task-clock, context switches, page faults) work everywhere perf_event_open is
//     permitted. With a Sampler (perf record -e cpu-clock -g, a software event, on the client's
//     CPUs) the same window also says where the CPU time went, kernel included, by function and
//     by system call.
//   - cachegrind: the server runs under `setarch -R valgrind --tool=cachegrind` (ASLR off) and is
//     driven with exactly N requests in one fresh run and 2N in a second; the per-response figure
//     is the difference divided by N, so start-up, the readiness probe and shutdown cancel out.
//     Counts are simulated and repeat to about 0.1% for instructions (Cachegrind). Every function
//     and every source file gets its own slope (Slopes); Breakdown shows those the method's
//     Resolution tells from its noise and groups the rest; estimated-cycles is a cost model over
//     the simulated caches, never a count of cycles.
//   - syscalls: the server's system calls per response, by tracepoint (no PMU needed): by call
//     under the paced client of cachegrind mode (OpenSyscalls, PacedSyscalls), where the calls a
//     request costs are fixed by the protocol; in total under a race's live load
//     (StartSyscallTotals), where batching moves them and a race compares them pair by pair.
//
// Why per-thread events rather than per-CPU: a per-CPU event on the server's pinned CPU also
// counts whatever else runs there (the kernel's loopback softirqs for the client, other
// processes, the idle loop), needs CAP_PERFMON or perf_event_paranoid <= 0, and is wrong when the
// server is not pinned. Per-thread events count exactly the server's own work (user and the
// kernel work done on its behalf in its syscalls), need only perf_event_paranoid <= 1 for a
// process of the same user, and work pinned or not. Every thread listed in /proc/<pid>/task gets
// its own events, each opened with `inherit`, so threads spawned later by any of them are counted
// too (the kernel folds an exiting child's counts into its parent's event).
package counters

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/bindrace/bindrace/harness/internal/round"
)

// Counter names used in Totals.Values and per-response maps.
const (
	// perf mode, hardware (need a PMU)
	Cycles          = "cycles"
	Instructions    = "instructions" // also cachegrind's Ir
	Branches        = "branches"     // also cachegrind's Bc+Bi
	BranchMisses    = "branch-misses"
	CacheReferences = "cache-references"
	CacheMisses     = "cache-misses"
	// perf mode, software
	TaskClockNs     = "task-clock-ns"
	ContextSwitches = "context-switches"
	PageFaults      = "page-faults"
	CPUMigrations   = "cpu-migrations"
	// derived (per-response maps only): instructions per cycle
	IPC = "ipc"

	// cachegrind mode (simulated)
	BranchMispredicts = "branch-mispredicts" // Bcm+Bim
	I1Misses          = "i1-misses"          // I1mr
	D1Misses          = "d1-misses"          // D1mr+D1mw
	LLMisses          = "ll-misses"          // ILmr+DLmr+DLmw
	LLIMisses         = "lli-misses"         // ILmr
	LLDMisses         = "lld-misses"         // DLmr+DLmw
	DataReads         = "data-reads"         // Dr
	DataWrites        = "data-writes"        // Dw
)

// HardwareCounters and SoftwareCounters list the perf-mode counters in report order.
var (
	HardwareCounters = []string{Cycles, Instructions, Branches, BranchMisses, CacheReferences, CacheMisses}
	SoftwareCounters = []string{TaskClockNs, ContextSwitches, PageFaults, CPUMigrations}
	// CachegrindCounters lists the cachegrind-mode counters in report order.
	CachegrindCounters = []string{Instructions, Branches, BranchMispredicts, I1Misses, D1Misses, LLMisses,
		LLIMisses, LLDMisses, DataReads, DataWrites}
)

// Totals are raw counts over one measurement window.
type Totals struct {
	Window      time.Duration      // how long the counters were enabled (perf) or 0 (cachegrind)
	Values      map[string]float64 // counter name -> total over the window (scaled if multiplexed)
	Unsupported map[string]string  // counter name -> why it could not be read; never also in Values

	// Refinements over ARCHITECTURE.md's Totals (additive):
	Threads int      // perf: threads the events were opened on (later ones are inherited)
	Notes   []string // caveats worth printing (multiplexing, threads that raced the open, …)
}

// PerResponse divides every value by responses. When both instructions and cycles were counted
// it adds "ipc" (instructions per cycle: a ratio, not divided). It returns an empty map when
// responses <= 0.
func PerResponse(t Totals, responses int64) map[string]float64 {
	out := map[string]float64{}
	if responses <= 0 {
		return out
	}
	for k, v := range t.Values {
		out[k] = v / float64(responses)
	}
	if c, ok := t.Values[Cycles]; ok && c > 0 {
		if i, ok := t.Values[Instructions]; ok {
			out[IPC] = i / c
		}
	}
	return out
}

// Order returns the counters of keys in report order: the known lists first, then the rest sorted.
func Order(keys map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, list := range [][]string{HardwareCounters, {IPC}, SoftwareCounters, CachegrindCounters} {
		for _, k := range list {
			if keys[k] && !seen[k] {
				out = append(out, k)
				seen[k] = true
			}
		}
	}
	var rest []string
	for k := range keys {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

// RoundMap is Round over a map's values.
func RoundMap(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = round.Readable(v)
	}
	return out
}

// FormatCount formats a counter for a table: whole numbers from a million, one decimal from
// 100, three below.
func FormatCount(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e6:
		return fmt.Sprintf("%.0f", v)
	case a >= 100:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}
