package counters

import (
	"math"
)

// Resolution is, per counter, the smallest per-response slope a cachegrind measurement tells
// from its own noise. A slope under it (negative ones included) is not shown as a number.
//
// Why there is noise at all: the N and 2N runs are two processes, and a process's one-off work
// (the Go heap growing, a GC cycle, V8 compiling a hot function on its background thread, a
// timer firing) lands in one of them and not the other, at a time that depends on how long the
// valgrind'ed run took. Such work is a fixed number of events per run, so its share of a slope
// shrinks as 1/N. The resolution of a slope at N is therefore the larger of
//
//  1. a budget of events per run, measured: the largest difference between the same function's
//     (or the total's) slope in repeated measurements of one build, on binding, binding-static
//     and uws, times N (jitterBudget, docs/counters.md "The resolution of a slope"); and
//  2. what the measurement itself shows: no function truly costs a negative amount per
//     response, so the most negative row slope is noise of that size, and a row within it of
//     zero cannot be told from none (selfNoise). This is what covers a noisier server than the
//     budget was measured on (node's JIT).
type Resolution map[string]float64

// jitterBudget is, per counter, the events per run that one-off work moved between the N and
// 2N runs of repeated measurements: for one row (a function or file), and for the total over all
// rows. Measured at N = 20,000 with the paced client, pipelining 10 and 1 (docs/counters.md).
var jitterBudget = map[string]struct{ row, total float64 }{
	Instructions:      {row: 20000, total: 60000},
	Branches:          {row: 4000, total: 13000},
	BranchMispredicts: {row: 3500, total: 1500},
	I1Misses:          {row: 100, total: 500},
	D1Misses:          {row: 100, total: 500},
	LLMisses:          {row: 60, total: 120},
	LLIMisses:         {row: 60, total: 120},
	LLDMisses:         {row: 60, total: 120},
	DataReads:         {row: 6000, total: 20000},
	DataWrites:        {row: 3000, total: 10000},
	EstimatedCycles:   {row: 25000, total: 80000},
}

// quantum is the smallest slope there is: one event in N responses.
func quantum(n int) float64 { return 1 / float64(max(n, 1)) }

// Resolutions gives the resolution of a row's slope and of the total's at n, from the slopes of
// every row of the measurement (one view's rows: every cost line is in exactly one).
func Resolutions(slopes []Slope, n int) (row, total Resolution) {
	row, total = Resolution{}, Resolution{}
	for k, budget := range jitterBudget {
		self := selfNoise(slopes, k)
		row[k] = math.Max(quantum(n), math.Max(budget.row/float64(n), self))
		total[k] = math.Max(row[k], budget.total/float64(n))
	}
	return row, total
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

// resolves says whether a slope of counter k is told from noise: it reaches the resolution.
// A counter without a resolution is never shown as a slope.
func (r Resolution) resolves(k string, v float64) bool {
	res, ok := r[k]
	return ok && v >= res
}

// resolved keeps the counters of values that reach their resolution.
func (r Resolution) resolved(values map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range values {
		if r.resolves(k, v) {
			out[k] = v
		}
	}
	return out
}
