package load

import (
	"math"
	"runtime"
	"sync/atomic"
)

// The measured window is two timestamps that workers compare each read's arrival time with,
// so a response counts exactly when it arrived between the edges, whatever the scheduling.

const edgePending = math.MaxInt64

// inWindow reports whether an arrival at t (taken before the call) is in the measured window.
// Each edge is published in two steps (pending, then its time), so a worker that still sees
// "not set" read its clock before the edge was even taken: t is on the right side of it
// without a race. A worker that sees "pending" waits the few nanoseconds until the time lands.
func (r *runner) inWindow(t int64) bool {
	s := r.winStart.Load()
	for s == edgePending {
		runtime.Gosched()
		s = r.winStart.Load()
	}
	if s == 0 || t < s {
		return false
	}
	e := r.winEnd.Load()
	for e == edgePending {
		runtime.Gosched()
		e = r.winEnd.Load()
	}
	return e == 0 || t <= e
}

// markEdge opens or closes the window now and returns the edge's time.
func markEdge(a *atomic.Int64) int64 {
	a.Store(edgePending)
	t := nanotime()
	a.Store(t)
	return t
}
