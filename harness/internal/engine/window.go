package engine

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"
)

// window is what the workers of one run share besides read-only configuration: the measured
// window, as two timestamps that workers compare each read's arrival time with (so a response
// counts exactly when it arrived between the edges, whatever the scheduling), and the signal to
// stop. drive sets it; workers only read it.
type window struct {
	// In nanotime; 0 = not yet, edgePending = being set right now.
	start, end atomic.Int64
	stop       atomic.Bool
}

const edgePending = math.MaxInt64

// in reports whether an arrival at t (a nanotime taken before the call) is in the window.
// Each edge is published in two steps (pending, then its time), so a worker that still sees
// "not set" read its clock before the edge was even taken: t is on the right side of it
// without a race. A worker that sees "pending" waits the few nanoseconds until the time lands.
func (w *window) in(t int64) bool {
	s := loadEdge(&w.start)
	if s == 0 || t < s {
		return false
	}
	e := loadEdge(&w.end)
	return e == 0 || t <= e
}

func loadEdge(a *atomic.Int64) int64 {
	v := a.Load()
	for v == edgePending {
		runtime.Gosched()
		v = a.Load()
	}
	return v
}

// stopped reports that the run is over: workers return from their loops.
func (w *window) stopped() bool { return w.stop.Load() }

// opened reports that the window has opened.
func (w *window) opened() bool { return w.start.Load() != 0 }

// open opens the window now; drive calls it when the warm-up ends.
func (w *window) open() { markEdge(&w.start) }

// close closes the window now; drive calls it when the measured time is up.
func (w *window) close() { markEdge(&w.end) }

// markEdge opens or closes the window now.
func markEdge(a *atomic.Int64) {
	a.Store(edgePending)
	a.Store(nanotime())
}

// finish sets res's Elapsed and RPS from the window and res.Responses.
func (w *window) finish(res *Result) {
	if s, e := w.start.Load(), w.end.Load(); s != 0 && e > s {
		res.Elapsed = time.Duration(e - s)
		res.RPS = float64(res.Responses) / res.Elapsed.Seconds()
	}
}
