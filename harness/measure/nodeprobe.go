package measure

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/procfs"
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
	NodeMainCPUReading    = "node_main_thread_cpu_pct"
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
	// Beside the main thread's ELU: ELU counts a busy loop's wall time, CPU its time on a CPU,
	// so the two part where the thread waits for a CPU (threads > CPUs, a busy machine).
	NodeMainCPUReading: "main thread CPU (% of one core; /proc/PID/task/PID/stat at the preload's reads)",
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
	dir      string
	pid      int
	start    nodeRead
	mainFrom float64 // the main thread's CPU seconds at the open; < 0: not read
	notRead  string  // why this server cannot be read at all
}

func (p nodeProbe) Open(srv Server, spec Spec) Reading {
	if t := p.targets[spec.Target]; t == nil || t.Kind != targets.KindNode {
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
	r := &nodeReading{dir: s.Node.Dir, pid: s.Server.Pid, start: readNode(s.Node.Dir, nodeAnswerBound)}
	r.mainFrom = mainThreadCPU(r.pid)
	return r
}

// mainThreadCPU is the CPU seconds of pid's main thread (its thread id is its pid); -1 when
// they cannot be read.
func mainThreadCPU(pid int) float64 {
	st, err := procfs.ReadThreadStat(pid, pid)
	if err != nil {
		return -1
	}
	return st.CPUSeconds()
}

func (r *nodeReading) Close(w *Window) error {
	if r.notRead != "" {
		w.Node = &NodeWindow{NotRead: r.notRead}
		return nil
	}
	end := readNode(r.dir, nodeAnswerBound)
	mainTo := mainThreadCPU(r.pid)
	w.Node = nodeWindowOf(r.start, end)
	if w.Node.NotRead == "" && r.mainFrom >= 0 && mainTo >= r.mainFrom {
		w.Node.MainCPUSeconds = mainTo - r.mainFrom
	} else {
		w.Node.MainCPUSeconds = -1
	}
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
	if t := p.targets[rec.Target]; t == nil || t.Kind != targets.KindNode {
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
	if r.MainCPUSeconds >= 0 && r.Seconds > 0 {
		put(rec, NodeMainCPUReading, round.To(100*r.MainCPUSeconds/r.Seconds, 2))
	} else {
		putOne(rec, NodeMainCPUReading, "the main thread's /proc stat was not read", false)
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
	if rec.Readings == nil {
		rec.Readings = map[string]session.Reading{}
	}
	rec.Readings[key] = session.Reading{Value: v, Label: nodeLabels[key], LowerIsBetter: true}
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
