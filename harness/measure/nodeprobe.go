package measure

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// The node runtime's readings (session.Run.Readings), by key.
const (
	NodeELUBusiestReading = "node_elu_busiest_pct"
	NodeELUMainReading    = "node_elu_main_pct"
	NodeHeapUsedReading   = "node_heap_used_mib"
	NodeHeapTotalReading  = "node_heap_total_mib"
	NodeGCTimeReading     = "node_gc_ms_per_s"
	NodeGCCountReading    = "node_gc_count"
)

// viaPreload says where every node reading comes from.
const viaPreload = "through the harness's preload"

// nodeLabels name the node readings in the reports, each with where it came from.
var nodeLabels = map[string]string{
	NodeELUBusiestReading: "event loop utilization, busiest thread (%; node perf_hooks, " + viaPreload + ")",
	NodeELUMainReading:    "event loop utilization, main thread (%; node perf_hooks, " + viaPreload + ")",
	NodeHeapUsedReading:   "V8 heap used at the last window's close, all threads (MiB; node v8.getHeapStatistics, " + viaPreload + ")",
	NodeHeapTotalReading:  "V8 heap total at the last window's close, all threads (MiB; node v8.getHeapStatistics, " + viaPreload + ")",
	NodeGCTimeReading:     "GC pause time per second of window, all threads (ms/s; node perf_hooks gc entries, " + viaPreload + ")",
	NodeGCCountReading:    "GC pauses over the windows, all threads (node perf_hooks gc entries, " + viaPreload + ")",
}

// notNode is what a run of another runtime says of the node readings.
const notNode = "not a node target"

// notRemote is what a node server on the fleet's server host says: its preload ran there, and
// its sockets are on that host.
const notRemote = "not read on a remote host: the preload's sockets are on the server host"

// nodeProbe reads a node target's runtime through its preload's sockets at a window's edges.
type nodeProbe struct {
	targets map[string]*targets.Target
}

type nodeReading struct {
	dir     string
	start   nodeRead
	notRead string // why this server cannot be read at all
}

func (p nodeProbe) Open(srv Server, spec Spec) Reading {
	if t := p.targets[spec.Target]; t == nil || t.Runtime != targets.RuntimeNode {
		return nil
	}
	s, ok := srv.(localServer)
	switch {
	case !ok:
		if _, remote := srv.(remoteServer); remote {
			return &nodeReading{notRead: notRemote}
		}
		return &nodeReading{notRead: "not read: the server is not one this harness started"}
	case s.Node == nil:
		return &nodeReading{notRead: "not read: the server was started without the preload's directory"}
	case s.Node.Err != nil:
		return &nodeReading{notRead: s.Node.Err.Error()}
	}
	return &nodeReading{dir: s.Node.Dir, start: readNode(s.Node.Dir, nodeAnswerBound)}
}

func (r *nodeReading) Close(w *Window) error {
	if r.notRead != "" {
		w.Node = &NodeWindow{NotRead: r.notRead}
		return nil
	}
	end := readNode(r.dir, nodeAnswerBound)
	w.Node = nodeWindowOf(r.start, end)
	if w.Node.NotRead != "" {
		return fmt.Errorf("node runtime not read: %s", w.Node.NotRead)
	}
	var warn []string
	if skipped := append(r.start.Skipped, end.Skipped...); len(skipped) > 0 {
		warn = append(warn, "skipped "+strings.Join(skipped, "; "))
	}
	if len(w.Node.Partial) > 0 {
		warn = append(warn, "partial: "+strings.Join(w.Node.Partial, "; "))
	}
	if len(warn) > 0 {
		return errors.New("node runtime: " + strings.Join(warn, "; "))
	}
	return nil
}

// Record: the busiest thread's and the main thread's ELU, the V8 heaps at the last window's
// close, GC pause time per second and pauses over the kept windows; a run of another runtime,
// or one whose threads could not be read, says why it has none.
func (p nodeProbe) Record(rec *session.Run, _ *Run, kept []Window) {
	if t := p.targets[rec.Target]; t == nil || t.Runtime != targets.RuntimeNode {
		putNotRead(rec, notNode, true)
		return
	}
	r, ok, why := nodeRunOf(kept)
	if !ok {
		if why == "" {
			why = "no window was read"
		}
		putNotRead(rec, why, false)
		return
	}
	busiest, _ := r.busiest()
	put(rec, NodeELUBusiestReading, round.To(busiest, 2))
	if main, ok := r.Threads[0]; ok {
		put(rec, NodeELUMainReading, round.To(main.ELUPct(), 2))
	} else {
		putOne(rec, NodeELUMainReading, "the main thread did not answer", false)
	}
	put(rec, NodeHeapUsedReading, mib(int64(r.HeapUsed)))
	put(rec, NodeHeapTotalReading, mib(int64(r.HeapTotal)))
	if !r.GCObserved {
		putOne(rec, NodeGCTimeReading, "this node's perf_hooks gave no gc entries", false)
		putOne(rec, NodeGCCountReading, "this node's perf_hooks gave no gc entries", false)
		return
	}
	ms, n := r.gc()
	put(rec, NodeGCTimeReading, round.Readable(ms))
	put(rec, NodeGCCountReading, float64(n))
}

// put adds node reading key's value to rec; every node reading is lower-is-better: the same work
// for less of the loop, the heap or the collector.
func put(rec *session.Run, key string, v float64) {
	addReadings(rec, map[string]session.Reading{key: {Value: v, Label: nodeLabels[key], LowerIsBetter: true}})
}

// putOne marks node reading key of rec as not read, and why.
func putOne(rec *session.Run, key, why string, notApplicable bool) {
	put(rec, key, 0)
	r := rec.Readings[key]
	r.NotRead, r.NotApplicable = why, notApplicable
	rec.Readings[key] = r
}

// putNotRead marks every node reading of rec as not read.
func putNotRead(rec *session.Run, why string, notApplicable bool) {
	for key := range nodeLabels {
		putOne(rec, key, why, notApplicable)
	}
}
