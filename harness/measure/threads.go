package measure

import (
	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/internal/round"
	"github.com/bindrace/bindrace/harness/session"
)

// The keys of the thread readings in a run's readings (session.Run.Readings), each from the
// server's /proc/PID/task/*/stat at the edges of its kept windows, over the time between the
// two reads by the server host's clock.
const (
	// BusiestThreadReading is the CPU of the thread that used the most in each window, in % of
	// one core: a server whose busiest thread is near 100% is bound by that thread.
	BusiestThreadReading = "busiest_thread_cpu_pct"
	// MainThreadReading is the main thread's (tid == pid) CPU in % of one core: Node's event
	// loop, the thread its ELU is about.
	MainThreadReading = "main_thread_cpu_pct"
	// LoopBusyReading is the binding's loop busy fraction (loopBusy says what it is).
	LoopBusyReading = "loop_busy_pct"
)

// threadsLabel says where the thread readings come from.
const threadsLabel = " (from /proc/PID/task/*/stat)"

// threadCPU is what a server's threads did over one window.
type threadCPU struct {
	wall    float64 // seconds between the window's two reads
	busiest float64 // CPU seconds of the thread that used the most
	main    float64 // CPU seconds of the main thread
	all     float64 // CPU seconds of every thread counted
	// waited is the seconds every thread counted was ready to run but waited for a CPU; known
	// when every thread's wait was read at both edges.
	waited    float64
	waitKnown bool
}

// threadsOver is the threads' CPU over a window; ok false when either edge has no threads.
// A thread born within the window counts from 0: all its time is the window's. One that
// vanished within it is left out: the kernel adds a dead thread's time to its process's, where
// no thread reading can find it (the process's CPU figure still has it). A thread whose time
// went backwards is a new thread that reused an exited one's id, and counts from 0 too.
func threadsOver(u *Usage) (threadCPU, bool) {
	if u == nil || u.Start.Threads == nil || u.End.Threads == nil {
		return threadCPU{}, false
	}
	tc := threadCPU{wall: u.End.At.Sub(u.Start.At).Seconds()}
	if tc.wall <= 0 {
		return threadCPU{}, false
	}
	before := make(map[int]procfs.Thread, len(u.Start.Threads))
	for _, th := range u.Start.Threads {
		before[th.Tid] = th
	}
	tc.waitKnown = true
	for _, th := range u.End.Threads {
		d, w := th.CPUSeconds, th.WaitSeconds
		b, ok := before[th.Tid]
		if ok && b.CPUSeconds <= d && b.WaitSeconds <= w {
			d, w = d-b.CPUSeconds, w-b.WaitSeconds
		}
		tc.all += d
		tc.waited += w
		tc.waitKnown = tc.waitKnown && th.WaitKnown && (!ok || b.WaitKnown)
		tc.busiest = max(tc.busiest, d)
		if th.Tid == u.End.Pid {
			tc.main = d
		}
	}
	return tc, true
}

// threadReadings are the thread readings over a run's closed windows, each window's CPU over
// the windows' summed time; loops > 0 (a binding target's loop count) adds the loop busy
// fraction over the windows whose threads' waits were read. Nil when no window read the
// threads at both edges.
func threadReadings(windows []Window, loops int) map[string]session.Reading {
	var sum, busy threadCPU
	for _, w := range windows {
		tc, ok := threadsOver(w.Usage)
		if !w.Closed || !ok {
			continue
		}
		sum.wall += tc.wall
		sum.busiest += tc.busiest
		sum.main += tc.main
		if tc.waitKnown {
			busy.wall += tc.wall
			busy.all += tc.all
			busy.waited += tc.waited
		}
	}
	if sum.wall <= 0 {
		return nil
	}
	pct := func(cpu float64) float64 { return round.To(cpu/sum.wall*100, 1) }
	out := map[string]session.Reading{
		BusiestThreadReading: {Value: pct(sum.busiest), Label: "busiest thread's CPU, % of one core" + threadsLabel},
		MainThreadReading:    {Value: pct(sum.main), Label: "main thread's CPU (tid = pid), % of one core" + threadsLabel},
	}
	if loops > 0 && busy.wall > 0 {
		out[LoopBusyReading] = session.Reading{Value: loopBusy(busy, loops),
			Label: "loop busy fraction, % of the loops' time (from /proc/PID/task/*/stat and schedstat)"}
	}
	return out
}

// loopBusy is the binding's loop busy fraction: the time all of the server's threads were on a
// CPU (stat) or ready and waiting for one (schedstat's run-queue delay), over the window's time
// times its loops, in %.
//
// A loop is a goroutine, not a thread: it runs on whichever thread holds its Go processor (P),
// and after a wait in C it may come back on another, so no thread is a loop's and a per-thread
// figure would split one loop's time over several. What /proc tells is how much of the time
// the loops' threads had work: the loops hold GOMAXPROCS's Ps (binding-ownp adds one per loop),
// their handlers run on the loop's goroutine, and the runtime's own threads (sysmon, the
// collector's workers) work for them, so all threads count. An idle loop sleeps in epoll and
// counts nowhere. A loop that had work but waited for its CPU (another process on it: this
// 2-core machine is shared) counts as busy, as Node's ELU counts a loop that the kernel
// preempted: with CPU time alone a saturated binding read 35-45% beside other builds. It can
// pass 100% when threads besides the loops had work at the same time (the runtime's, or
// detached answers on binding-ownp's spare Ps). A thread's CPU time is in clock ticks (10 ms),
// so a 1 s window reads to about ±1% a thread.
func loopBusy(sum threadCPU, loops int) float64 {
	return round.To((sum.all+sum.waited)/(sum.wall*float64(loops))*100, 1)
}
