package measure

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/bindrace/bindrace/harness/internal/round"
)

// NodeWindow is a node server's runtime over one window, from its threads' cumulative figures at
// the window's edges; NotRead says why there is nothing (and Threads is empty).
type NodeWindow struct {
	Threads map[int]NodeThreadWindow
	Seconds float64 // between the two reads
	// HeapUsed and HeapTotal are the V8 heaps at the window's close, summed over the threads
	// that answered (bytes).
	HeapUsed, HeapTotal float64
	GCObserved          bool // every thread observed its GC pauses
	// Partial names the threads whose window is not whole: it started or ended inside it, or did
	// not answer at one edge.
	Partial []string
	NotRead string
}

// NodeThreadWindow is one thread over a window.
type NodeThreadWindow struct {
	ActiveMs, IdleMs, GCMs float64
	GCCount                int64
}

// ELUPct is the thread's event loop utilization over the window: the share of its loop's time
// spent outside the wait for events.
func (t NodeThreadWindow) ELUPct() float64 {
	if t.ActiveMs+t.IdleMs <= 0 {
		return 0
	}
	return 100 * t.ActiveMs / (t.ActiveMs + t.IdleMs)
}

// nodeWindowOf is the window between two reads. A thread that appeared after the first read
// lived its whole life inside the window: its figures at the close are the window's. A thread
// missing at the close is left out (what it did is lost), and both are named as partial.
func nodeWindowOf(start, end nodeRead) *NodeWindow {
	if end.Err != nil || start.Err != nil && len(end.Threads) == 0 {
		why := end.Err
		if why == nil {
			why = start.Err
		}
		return &NodeWindow{NotRead: why.Error()}
	}
	w := &NodeWindow{Threads: map[int]NodeThreadWindow{}, Seconds: end.At.Sub(start.At).Seconds(), GCObserved: true}
	for id, e := range end.Threads {
		d := NodeThreadWindow{ActiveMs: e.ELUActiveMs, IdleMs: e.ELUIdleMs, GCMs: e.GCMs, GCCount: e.GCCount}
		if s, ok := start.Threads[id]; ok && e.ELUActiveMs >= s.ELUActiveMs && e.ELUIdleMs >= s.ELUIdleMs {
			d = NodeThreadWindow{ActiveMs: e.ELUActiveMs - s.ELUActiveMs, IdleMs: e.ELUIdleMs - s.ELUIdleMs,
				GCMs: max(e.GCMs-s.GCMs, 0), GCCount: max(e.GCCount-s.GCCount, 0)}
		} else {
			w.Partial = append(w.Partial, fmt.Sprintf("thread %d from inside the window", id))
		}
		w.Threads[id] = d
		w.HeapUsed += e.HeapUsed
		w.HeapTotal += e.HeapTotal
		w.GCObserved = w.GCObserved && e.GCObserved
	}
	for id := range start.Threads {
		if _, ok := end.Threads[id]; !ok {
			w.Partial = append(w.Partial, fmt.Sprintf("thread %d not read at the close", id))
		}
	}
	sort.Strings(w.Partial)
	return w
}

// threadELU is each thread's ELU over the window in %, by thread id, for raw.json.
func (w *NodeWindow) threadELU() map[string]float64 {
	if w == nil || len(w.Threads) == 0 {
		return nil
	}
	out := map[string]float64{}
	for id, t := range w.Threads {
		out[strconv.Itoa(id)] = round.To(t.ELUPct(), 2)
	}
	return out
}

// nodeRun is a node server's runtime over a run's kept windows.
type nodeRun struct {
	Threads             map[int]NodeThreadWindow // each thread's sums over the windows
	Seconds             float64
	HeapUsed, HeapTotal float64 // at the last window's close
	GCObserved          bool
}

// nodeRunOf sums the kept windows that were read; ok false, with the last reason, when none was.
func nodeRunOf(kept []Window) (r nodeRun, ok bool, why string) {
	r = nodeRun{Threads: map[int]NodeThreadWindow{}, GCObserved: true}
	for _, w := range kept {
		n := w.Node
		if n == nil || !w.Closed {
			continue
		}
		if n.NotRead != "" {
			why = n.NotRead
			continue
		}
		ok = true
		for id, t := range n.Threads {
			s := r.Threads[id]
			s.ActiveMs, s.IdleMs, s.GCMs, s.GCCount = s.ActiveMs+t.ActiveMs, s.IdleMs+t.IdleMs, s.GCMs+t.GCMs, s.GCCount+t.GCCount
			r.Threads[id] = s
		}
		r.Seconds += n.Seconds
		r.HeapUsed, r.HeapTotal = n.HeapUsed, n.HeapTotal
		r.GCObserved = r.GCObserved && n.GCObserved
	}
	return r, ok, why
}

// busiest is the highest ELU of any thread (%), and that thread.
func (r nodeRun) busiest() (pct float64, thread int) {
	thread = -1
	for id, t := range r.Threads {
		if e := t.ELUPct(); thread < 0 || e > pct || e == pct && id < thread {
			pct, thread = e, id
		}
	}
	return pct, thread
}

// gc is the GC pause time per second of the windows (ms/s) and the pauses, over every thread.
func (r nodeRun) gc() (msPerS float64, count int64) {
	var ms float64
	for _, t := range r.Threads {
		ms += t.GCMs
		count += t.GCCount
	}
	if r.Seconds > 0 {
		msPerS = ms / r.Seconds
	}
	return msPerS, count
}
