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
	NodeMainWaitReading   = "node_main_thread_run_wait_pct"
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
	// The rest of a busy loop's wall time: runnable, waiting for a CPU.
	NodeMainWaitReading: "main thread waiting for a CPU (% of the window; /proc/PID/task/PID/schedstat at the preload's reads)",
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
	mainFrom mainThread // the main thread at the open
	notRead  string     // why this server cannot be read at all
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
	r.mainFrom = mainThreadOf(r.pid)
	return r
}

// mainThread is what the kernel says of a node server's main thread (its thread id is its
// pid): its CPU seconds and its seconds runnable but waiting for a CPU; -1: not read.
type mainThread struct{ cpu, wait float64 }

func mainThreadOf(pid int) mainThread {
	m := mainThread{cpu: -1, wait: -1}
	if th, err := procfs.ReadThread(pid, pid); err == nil {
		m.cpu = th.CPUSeconds
		if th.WaitKnown {
			m.wait = th.WaitSeconds
		}
	}
	return m
}

// since is the difference from an earlier reading, each part -1 where either was not read.
func (m mainThread) since(from mainThread) mainThread {
	diff := func(a, b float64) float64 {
		if a < 0 || b < 0 || a < b {
			return -1
		}
		return a - b
	}
	return mainThread{cpu: diff(m.cpu, from.cpu), wait: diff(m.wait, from.wait)}
}

func (r *nodeReading) Close(w *Window) error {
	if r.notRead != "" {
		w.Node = &NodeWindow{NotRead: r.notRead}
		return nil
	}
	end := readNode(r.dir, nodeAnswerBound)
	main := mainThreadOf(r.pid).since(r.mainFrom)
	w.Node = nodeWindowOf(r.start, end)
	w.Node.MainCPUSeconds, w.Node.MainWaitSeconds = main.cpu, main.wait
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
	putShare(rec, NodeMainCPUReading, r.MainCPUSeconds, r.Seconds, "the main thread's /proc stat was not read")
	putShare(rec, NodeMainWaitReading, r.MainWaitSeconds, r.Seconds, "the main thread's /proc schedstat was not read")
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

// putShare adds seconds over the windows' seconds in %, or marks key not read (seconds < 0).
func putShare(rec *session.Run, key string, seconds, of float64, why string) {
	if seconds < 0 || of <= 0 {
		putOne(rec, key, why, false)
		return
	}
	put(rec, key, round.To(100*seconds/of, 2))
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
