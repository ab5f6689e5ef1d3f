package measure

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/fleet"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

func nodeAt(at time.Time, threads ...nodeThread) nodeRead {
	rd := nodeRead{At: at, Threads: map[int]nodeThread{}}
	for _, t := range threads {
		rd.Threads[t.Thread] = t
	}
	return rd
}

// TestNodeWindowArithmetic: a window's ELU is each thread's active time over its loop's time
// between two cumulative reads; a thread that appeared mid-window counts from its start; one
// gone at the close is left out; the heap is the close's, summed.
func TestNodeWindowArithmetic(t *testing.T) {
	t0 := time.Unix(1000, 0)
	start := nodeAt(t0,
		nodeThread{Thread: 0, ELUIdleMs: 500, ELUActiveMs: 100, GCObserved: true, GCCount: 3, GCMs: 4},
		nodeThread{Thread: 1, ELUIdleMs: 900, ELUActiveMs: 300, GCObserved: true, GCCount: 1, GCMs: 1},
		nodeThread{Thread: 7, ELUIdleMs: 1, ELUActiveMs: 1, GCObserved: true})
	end := nodeAt(t0.Add(2*time.Second),
		// main: 1600 ms active, 400 idle over the window: 80%
		nodeThread{Thread: 0, ELUIdleMs: 900, ELUActiveMs: 1700, HeapUsed: 10 << 20, HeapTotal: 16 << 20, GCObserved: true, GCCount: 5, GCMs: 10},
		// worker: 1980 active, 20 idle: 99%
		nodeThread{Thread: 1, ELUIdleMs: 920, ELUActiveMs: 2280, HeapUsed: 6 << 20, HeapTotal: 8 << 20, GCObserved: true, GCCount: 2, GCMs: 3},
		// born mid-window: its whole life, 300 active of 1000
		nodeThread{Thread: 2, ELUIdleMs: 700, ELUActiveMs: 300, HeapUsed: 1 << 20, HeapTotal: 2 << 20, GCObserved: true, GCCount: 1, GCMs: 2})
	w := nodeWindowOf(start, end)
	if w.NotRead != "" || w.Seconds != 2 {
		t.Fatalf("window %+v", w)
	}
	want := map[int]float64{0: 80, 1: 99, 2: 30}
	for id, pct := range want {
		if got := w.Threads[id].ELUPct(); math.Abs(got-pct) > 1e-9 {
			t.Errorf("thread %d: ELU %v, want %v", id, got, pct)
		}
	}
	if _, ok := w.Threads[7]; ok || len(w.Threads) != 3 {
		t.Errorf("threads %v: want 0, 1 and 2 (7 was gone at the close)", w.Threads)
	}
	if len(w.Partial) != 2 || !strings.Contains(w.Partial[0], "thread 2 from inside") || !strings.Contains(w.Partial[1], "thread 7 not read") {
		t.Errorf("partial %q", w.Partial)
	}
	if w.HeapUsed != 17<<20 || w.HeapTotal != 26<<20 {
		t.Errorf("heap %v / %v", w.HeapUsed, w.HeapTotal)
	}
	if got := w.threadELU(); got["0"] != 80 || got["1"] != 99 || got["2"] != 30 {
		t.Errorf("per-thread ELU for raw.json %v", got)
	}

	// Two such windows make a run: per thread, the sums; the busiest is the worker.
	r, ok, _ := nodeRunOf([]Window{{Closed: true, Node: w}, {Closed: true, Node: w}, {Closed: false, Node: w}})
	if !ok || r.Seconds != 4 {
		t.Fatalf("run %+v %v", r, ok)
	}
	if pct, id := r.busiest(); id != 1 || math.Abs(pct-99) > 1e-9 {
		t.Errorf("busiest %v%% on thread %d, want 99%% on 1", pct, id)
	}
	// GC: (6 + 2 + 2) ms per window, twice, over 4 s; 2 + 1 + 1 pauses twice.
	if ms, n := r.gc(); math.Abs(ms-5) > 1e-9 || n != 8 {
		t.Errorf("gc %v ms/s, %d pauses; want 5 and 8", ms, n)
	}
}

// TestNodeWindowNotRead: a failed read at either edge makes a window that says why, and a run of
// such windows records every node reading as not read, with the reason.
func TestNodeWindowNotRead(t *testing.T) {
	t0 := time.Unix(1000, 0)
	good := nodeAt(t0, nodeThread{Thread: 0, ELUIdleMs: 1, ELUActiveMs: 1, GCObserved: true})
	bad := nodeRead{At: t0, Err: errTest("no thread answered")}
	if w := nodeWindowOf(good, bad); w.NotRead != "no thread answered" {
		t.Errorf("failed close: %+v", w)
	}
	// Nothing at the open (threads not yet listening) but all at the close: read from their start.
	if w := nodeWindowOf(bad, good); w.NotRead != "" || len(w.Threads) != 1 || len(w.Partial) != 1 {
		t.Errorf("failed open: %+v", w)
	}
	p := nodeProbe{targets: map[string]*targets.Target{"uws": {Name: "uws", Runtime: targets.RuntimeNode}, "nethttp": {Name: "nethttp", Runtime: targets.RuntimeGo}}}
	rec := session.Run{Target: "uws"}
	p.Record(&rec, nil, []Window{{Closed: true, Node: &NodeWindow{NotRead: "the preload could not listen: path too long"}}})
	if len(rec.Readings) != len(nodeLabels) {
		t.Fatalf("readings %v", rec.Readings)
	}
	for k, r := range rec.Readings {
		if r.NotRead != "the preload could not listen: path too long" || r.NotApplicable || r.Label == "" {
			t.Errorf("%s: %+v", k, r)
		}
	}
	// A server on the fleet's server host: its preload ran there; the reading says it was not
	// read here rather than show a zero.
	var w Window
	if rd := p.Open(remoteServer{&fleet.Server{}}, Spec{Target: "uws"}); rd == nil || rd.Close(&w) != nil {
		t.Fatalf("remote uws: reading %v", rd)
	}
	w.Closed = true
	rec = session.Run{Target: "uws"}
	p.Record(&rec, nil, []Window{w})
	if r := rec.Readings[NodeELUMainReading]; r.NotRead != notRemote || r.NotApplicable {
		t.Errorf("remote uws: %+v", r)
	}
	if rd := p.Open(remoteServer{&fleet.Server{}}, Spec{Target: "nethttp"}); rd != nil {
		t.Errorf("a Go target read as node: %v", rd)
	}
	rec = session.Run{Target: "nethttp"}
	p.Record(&rec, nil, nil)
	if r := rec.Readings[NodeELUBusiestReading]; r.NotRead != notNode || !r.NotApplicable {
		t.Errorf("a Go target's ELU: %+v", r)
	}
}

// TestNodeRecord: a read run's readings, each labelled with where it came from.
func TestNodeRecord(t *testing.T) {
	w := &NodeWindow{Threads: map[int]NodeThreadWindow{0: {ActiveMs: 970, IdleMs: 30, GCMs: 5, GCCount: 2}, 1: {ActiveMs: 990, IdleMs: 10}},
		Seconds: 1, HeapUsed: 3 << 20, HeapTotal: 4 << 20, GCObserved: true}
	p := nodeProbe{targets: map[string]*targets.Target{"uws": {Name: "uws", Runtime: targets.RuntimeNode}}}
	rec := session.Run{Target: "uws"}
	p.Record(&rec, nil, []Window{{Closed: true, Node: w}})
	want := map[string]float64{NodeELUBusiestReading: 99, NodeELUMainReading: 97, NodeHeapUsedReading: 3, NodeHeapTotalReading: 4,
		NodeGCTimeReading: 5, NodeGCCountReading: 2}
	for k, v := range want {
		r := rec.Readings[k]
		if r.Value != v || r.NotRead != "" || !strings.Contains(r.Label, "through the harness's preload") {
			t.Errorf("%s = %+v, want %v", k, r, v)
		}
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }
