package counters

import (
	"math"
)

// Resolution is, per counter, the smallest per-response slope a cachegrind measurement tells
// from its own noise. A slope under it (negative ones included) is not shown as a number.
//
// Why there is noise at all: the N and 2N runs are two processes, and work that is driven by
// time rather than by requests (the Go runtime's sysmon, scavenger and timers, a GC cycle, the
// heap growing; V8 compiling a hot function or collecting on its own schedule; the core's Date
// cache, once a second) lands in each run in amounts that differ from run to run. Repeated
// measurements show that difference growing with how long the runs took, about linearly
// (docs/counters.md, "The resolution of a slope"), so the resolution of a slope is the larger of
//
//  1. a noise rate, measured, in events per second of the two runs' load phases, times those
//     seconds, divided by N (jitterRates: the largest difference between repeated measurements
//     of the same build, per row and for the total, on binding, binding-static and uws at
//     pipelining 10 and 1). Under the paced client the runs' length grows with N, so a larger N
//     does not lower it: repetition does (the gate takes a median of three);
//  2. what the measurement itself shows: no function truly costs a negative amount per
//     response, so the most negative row slope is noise of that size, and a row within it of
//     zero cannot be told from none (selfNoise). This covers a noisier server than the rates
//     were measured on;
//  3. one event in N responses;
//  4. for the total's instructions, the time-driven work this measurement itself shows: 2.2
//     times the slope of the Go runtime's functions that only its monitor thread runs on a timer
//     (timeDrivenRows). Their slope grows with the seconds each response took under valgrind,
//     and with them the scheduler locks, clock reads and hand-offs the monitor's ticks cost
//     elsewhere (2.8 to 3 instructions in all for each of theirs); on a loaded VM the same
//     build's count at pipelining 1 moved by 15% with them (docs/counters.md, "Counts that
//     repeat"). A server that shows no such rows (static routes, node) gets nothing from it;
//  5. for the total's instructions, one heap growth over N (oneOff); for node, one of V8's
//     compiles or collections (nodeOneOff).
type Resolution map[string]float64

// noiseRate is a counter's run-to-run noise in events per second of the runs: for one row (a
// function or a file), and for the total over all rows.
type noiseRate struct{ row, total float64 }

// jitterRates are the measured noise rates (docs/counters.md): for node, whose V8 compiles and
// collects on its own threads and schedule, and for every other server.
var jitterRates = map[bool]map[string]noiseRate{
	false: {
		Instructions:      {row: 5400, total: 24000},
		Branches:          {row: 1500, total: 4400},
		BranchMispredicts: {row: 480, total: 800},
		I1Misses:          {row: 15, total: 64},
		D1Misses:          {row: 60, total: 140},
		LLMisses:          {row: 62, total: 56},
		LLIMisses:         {row: 62, total: 56},
		LLDMisses:         {row: 62, total: 56},
		DataReads:         {row: 1500, total: 7300},
		DataWrites:        {row: 480, total: 3300},
		EstimatedCycles:   {row: 8500, total: 33000},
	},
	true: {
		Instructions:      {row: 220000, total: 330000},
		Branches:          {row: 26000, total: 44000},
		BranchMispredicts: {row: 6600, total: 6800},
		I1Misses:          {row: 60, total: 590},
		D1Misses:          {row: 640, total: 3100},
		LLMisses:          {row: 41, total: 41},
		LLIMisses:         {row: 41, total: 41},
		LLDMisses:         {row: 41, total: 41},
		DataReads:         {row: 7800, total: 52000},
		DataWrites:        {row: 6500, total: 27000},
		EstimatedCycles:   {row: 220000, total: 370000},
	},
}

// quantum is the smallest slope there is: one event in N responses.
func quantum(n int) float64 { return 1 / float64(max(n, 1)) }

// Resolutions gives the resolution of a row's slope and of the total's, for a measurement of n
// responses whose two runs' load phases took seconds together, from the slopes of every row of
// one view (every cost line is in exactly one row). node picks node's noise rates.
func Resolutions(slopes []Slope, n int, seconds float64, node bool) (row, total Resolution) {
	row, total = Resolution{}, Resolution{}
	for k, rate := range jitterRates[node] {
		self := selfNoise(slopes, k)
		row[k] = math.Max(quantum(n), math.Max(rate.row*seconds/float64(n), self))
		total[k] = math.Max(row[k], rate.total*seconds/float64(n))
	}
	once := oneOff
	if node {
		once = nodeOneOff
	}
	total[Instructions] = math.Max(total[Instructions], math.Max(timeDrivenScale*timeDriven(slopes), once/float64(max(n, 1))))
	return row, total
}

// oneOff is the largest one-off seen in one of a measurement's two runs and not the other: a Go
// heap's growth and the page allocator's search for it (runtime.(*pageAlloc).find, 72,000 to
// 86,000 instructions; docs/counters.md, "Counts that repeat"). Over N it bounds the total at
// small N, where the rates do not: at N = 2,000 an A/A count beside a CPU hog came out 2.6%
// apart with a resolution of 16 (0.9%).
const oneOff = 86000.0

// nodeOneOff is oneOff for node: V8 compiles hot functions and collects garbage on threads and
// timers of its own, events of millions of instructions that land in one run and not the other.
// uws's repeated counts at N = 10,000 lay up to 1,222 instructions per response apart (ping at
// pipelining 10: 7,595.5 and 8,817.3; ws-echo 4,123.5 and 5,232.7; docs/counters.md, "Every
// target and shape, three times"): 12.2 million. Without it the rates claimed ±186 there, and
// an A/A race of uws could FAIL on instructions.
const nodeOneOff = 12.5e6

// timeDrivenRows are the functions only the Go runtime's monitor (sysmon) runs, each tick of
// its timer: what they cost per response measures how many ticks a response took.
var timeDrivenRows = map[string]bool{
	"runtime.sysmon": true, "runtime.retake": true, "runtime.usleep": true, "runtime.usleep.abi0": true,
	"runtime.checkdead": true, "runtime.incidlelocked": true, "runtime.setBlockOnExitSyscall": true,
}

// timeDrivenScale bounds how far a count lies from its build's usual count per instruction of
// its timeDrivenRows. The time-driven work is 2.81 (binding) to 2.98 (fasthttp) times those
// rows, and no count lies further from the median of its repeats than the part of it that the
// other repeats did not have: at most 2.2 times its rows (13 counts of binding at pipelining 1
// on a loaded VM, the furthest +472 at 214.8; at pipelining 10 the rows are 3.6-5.2, and this
// term about the rates' own).
const timeDrivenScale = 2.2

// timeDriven is the instructions per response of the function view's timeDrivenRows.
func timeDriven(slopes []Slope) float64 {
	sum := 0.0
	for _, s := range slopes {
		if timeDrivenRows[s.Name] {
			sum += max(s.Values[Instructions], 0)
		}
	}
	return sum
}

// selfNoise is the magnitude of the most negative slope of counter k among the rows (0 when
// none is negative).
func selfNoise(slopes []Slope, k string) float64 {
	worst := 0.0
	for _, s := range slopes {
		if v := s.Values[k]; v < -worst {
			worst = -v
		}
	}
	return worst
}

// Resolves says whether a slope of counter k is told from noise: it reaches the resolution.
// A counter without a resolution is never shown as a slope.
func (r Resolution) Resolves(k string, v float64) bool {
	res, ok := r[k]
	return ok && v >= res
}

// resolved keeps the counters of values that reach their resolution.
func (r Resolution) resolved(values map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range values {
		if r.Resolves(k, v) {
			out[k] = v
		}
	}
	return out
}
