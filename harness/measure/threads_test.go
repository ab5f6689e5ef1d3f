package measure

import (
	"errors"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/targets"
)

// threadWindow is a closed window of pid's server from its threads at the two edges, wall apart by
// the host's clock.
func threadWindow(pid int, wall time.Duration, start, end []procfs.Thread) Window {
	at := time.Unix(1_800_000_000, 0)
	return Window{Closed: true, Usage: &Usage{
		Start: procfs.Usage{Pid: pid, At: at, Threads: start},
		End:   procfs.Usage{Pid: pid, At: at.Add(wall), Threads: end},
	}}
}

// th is a thread of tid that used cpu seconds and waited wait seconds for a CPU so far.
func th(tid int, cpu, wait float64) procfs.Thread {
	return procfs.Thread{Tid: tid, CPUSeconds: cpu, WaitSeconds: wait, WaitKnown: true}
}

func TestThreadsOverAWindow(t *testing.T) {
	// Over 2 s: the main thread (tid 50) used 0.4 s, a worker 1.6 s and waited 0.2 s for a CPU;
	// a thread born mid-window counts from 0 (0.3 s, 0.1 s waited), one that vanished is left
	// out, and tid 54, reused by a new thread, counts from 0 too.
	w := threadWindow(50, 2*time.Second,
		[]procfs.Thread{th(50, 1, 0), th(51, 5, 1), th(53, 9, 0), th(54, 7, 3)},
		[]procfs.Thread{th(50, 1.4, 0), th(51, 6.6, 1.2), th(52, 0.3, 0.1), th(54, 0.1, 0.5)})
	for _, c := range []struct {
		loops int
		want  threadCPU
	}{
		{0, threadCPU{wall: 2, busiest: 1.6, main: 0.4}},
		// One loop: the thread that used the most, on a CPU or waiting for one.
		{1, threadCPU{wall: 2, busiest: 1.6, main: 0.4, loops: 1.8, loopsKnown: true}},
		// Two: the next is the main thread; the born thread's wait is not a loop's.
		{2, threadCPU{wall: 2, busiest: 1.6, main: 0.4, loops: 2.2, loopsKnown: true}},
	} {
		tc, ok := threadsOver(w.Usage, c.loops)
		if !ok || !near(tc.wall, c.want.wall) || !near(tc.busiest, c.want.busiest) || !near(tc.main, c.want.main) ||
			!near(tc.loops, c.want.loops) || tc.loopsKnown != c.want.loopsKnown {
			t.Errorf("threads over the window, %d loops = %+v, %v; want %+v", c.loops, tc, ok, c.want)
		}
	}
	r := threadReadings([]Window{w}, 0)
	if r[BusiestThreadReading].Value != 80 || r[MainThreadReading].Value != 20 {
		t.Errorf("readings %+v; want the busiest thread at 80%% and the main one at 20%% of a core", r)
	}
	if _, ok := r[LoopBusyReading]; ok {
		t.Error("a loop busy fraction for a target without loops")
	}
	if b := threadReadings([]Window{w}, 1)[LoopBusyReading].Value; b != 90 {
		t.Errorf("one loop busy %.1f%%, want 90%%", b)
	}
	if b := threadReadings([]Window{w}, 2)[LoopBusyReading].Value; b != 55 {
		t.Errorf("two loops busy %.1f%%, want 55%%", b)
	}
	// A loop thread whose wait could not be read at an edge leaves the window's busy fraction
	// out; another thread's does not.
	unknown := threadWindow(50, time.Second, []procfs.Thread{th(50, 0, 0), th(51, 0, 0)}, []procfs.Thread{{Tid: 50, CPUSeconds: 1}, th(51, 0.1, 0)})
	if tc, _ := threadsOver(unknown.Usage, 1); tc.loopsKnown {
		t.Error("a window whose loop's wait was not read is known")
	}
	if tc, _ := threadsOver(threadWindow(50, time.Second, []procfs.Thread{th(50, 0, 0), {Tid: 51}}, []procfs.Thread{th(50, 1, 0), {Tid: 51}}).Usage, 1); !tc.loopsKnown {
		t.Error("a window whose loop's wait was read is unknown for another thread's")
	}
	if b := threadReadings([]Window{w, unknown}, 1)[LoopBusyReading].Value; b != 90 {
		t.Errorf("loop busy over a window with the loop's wait and one without: %.1f%%, want the first's 90%%", b)
	}
	if r := threadReadings([]Window{unknown}, 1); r[MainThreadReading].Value != 100 || r[LoopBusyReading].Label != "" {
		t.Errorf("readings of a window without the loop's wait: %+v; want CPU shares and no busy fraction", r)
	}
}

// The run's figures are over its windows' summed time, and windows without both edges' threads
// (a read that failed, a window cut short) are left out.
func TestThreadReadingsOverWindows(t *testing.T) {
	one := []procfs.Thread{th(7, 0, 0)}
	a := threadWindow(7, time.Second, one, []procfs.Thread{th(7, 1, 0)})
	b := threadWindow(7, 3*time.Second, one, []procfs.Thread{th(7, 0.6, 0.4)})
	noThreads := threadWindow(7, time.Second, nil, one)
	cut := threadWindow(7, time.Second, one, []procfs.Thread{th(7, 1, 0)})
	cut.Closed = false
	r := threadReadings([]Window{a, b, noThreads, cut, {Closed: true}}, 1)
	if r[MainThreadReading].Value != 40 || r[BusiestThreadReading].Value != 40 || r[LoopBusyReading].Value != 50 {
		t.Errorf("readings %+v; want 1.6 CPU-s over 4 s, 40%%, and 50%% busy with the 0.4 s waited", r)
	}
	// The main thread's wait for a CPU, over the windows where it was read: 0.4 s of 4.
	if w := r[MainThreadWaitReading]; w.Value != 10 || !w.Context {
		t.Errorf("main thread's wait %+v; want 10%% of the windows, as context", w)
	}
	unread := threadWindow(7, time.Second, []procfs.Thread{{Tid: 7}}, []procfs.Thread{{Tid: 7, CPUSeconds: 1}})
	if w := threadReadings([]Window{a, unread}, 0)[MainThreadWaitReading]; w.Value != 0 {
		t.Errorf("main thread's wait with a window unread: %+v; want the other window's 0%%", w)
	}
	if r := threadReadings([]Window{noThreads, cut}, 1); r != nil {
		t.Errorf("readings without threads at both edges: %+v", r)
	}
	back := threadWindow(7, 0, one, one)
	if _, ok := threadsOver(back.Usage, 1); ok {
		t.Error("a window of no time read")
	}
}

// The usage probe records the thread readings of every target, and the loop busy fraction of
// a binding's, over the loops it gave the server.
func TestUsageProbeRecordsThreads(t *testing.T) {
	p := usageProbe{
		targets: map[string]*targets.Target{"binding": {Name: "binding", Runtime: targets.RuntimeGo, LoopThreads: true}, "fasthttp": {Name: "fasthttp", Runtime: targets.RuntimeGo}},
		plan:    Plan{Method: profile.Method{CPUsServer: "0"}},
	}
	w := threadWindow(9, time.Second, []procfs.Thread{th(9, 0, 0), th(10, 0, 0)}, []procfs.Thread{th(9, 0.9, 0.04), th(10, 0.05, 0.01)})
	for _, c := range []struct {
		target string
		spec   Spec
		busy   float64 // 0: no loop busy fraction
	}{
		{"binding", Spec{Target: "binding"}, 94},
		{"binding on two loops", Spec{Target: "binding", Threads: 2}, 50},
		{"fasthttp", Spec{Target: "fasthttp"}, 0},
	} {
		var rec session.Run
		p.Record(&rec, &Run{Spec: c.spec}, []Window{w})
		if rec.Readings[MainThreadReading].Value != 90 || rec.Readings[BusiestThreadReading].Value != 90 {
			t.Errorf("%s: readings %+v", c.target, rec.Readings)
		}
		if got, ok := rec.Readings[LoopBusyReading]; ok != (c.busy > 0) || got.Value != c.busy {
			t.Errorf("%s: loop busy %+v (%v), want %.1f", c.target, got, ok, c.busy)
		}
	}
	var rec session.Run
	failed := w
	failed.Usage = &Usage{Start: procfs.Usage{ThreadsErr: errors.New("600 threads")}, End: w.Usage.End}
	p.Record(&rec, &Run{Spec: Spec{Target: "binding"}}, []Window{failed})
	if _, ok := rec.Readings[MainThreadReading]; ok {
		t.Errorf("thread readings from a window whose threads were not read: %+v", rec.Readings)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
