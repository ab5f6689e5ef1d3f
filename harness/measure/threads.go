package measure

import (
	"cmp"
	"slices"

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
	// MainThreadWaitReading is the main thread's time runnable but waiting for a CPU, in % of
	// the window: beside Node's ELU, which counts a loop's wall time, where CPU counts its time
	// on a CPU, the two part by this.
	MainThreadWaitReading = "main_thread_run_wait_pct"
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
	// mainWait is the seconds the main thread waited for a CPU, when mainWaitKnown.
	mainWait      float64
	mainWaitKnown bool
	// loops is the seconds the loops' threads (loopBusy says which) were on a CPU or waited
	// for one; loopsKnown when their waits were read at both edges.
	loops      float64
	loopsKnown bool
}

// threadTime is one thread's time within a window.
type threadTime struct {
	cpu, wait float64
	waitKnown bool
}

// threadsOver is the threads' CPU over a window, with the time of the loops threads that used
// the most (none for loops 0); ok false when either edge has no threads. A thread born within
// the window counts from 0: all its time is the window's. One that vanished within it is left
// out: the kernel adds a dead thread's time to its process's, where no thread reading can find
// it (the process's CPU figure still has it). A thread whose time went backwards is a new
// thread that reused an exited one's id, and counts from 0 too.
func threadsOver(u *Usage, loops int) (threadCPU, bool) {
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
	times := make([]threadTime, 0, len(u.End.Threads))
	for _, th := range u.End.Threads {
		t := threadTime{cpu: th.CPUSeconds, wait: th.WaitSeconds, waitKnown: th.WaitKnown}
		if b, ok := before[th.Tid]; ok && b.CPUSeconds <= t.cpu && b.WaitSeconds <= t.wait {
			t.cpu, t.wait, t.waitKnown = t.cpu-b.CPUSeconds, t.wait-b.WaitSeconds, t.waitKnown && b.WaitKnown
		}
		times = append(times, t)
		tc.busiest = max(tc.busiest, t.cpu)
		if th.Tid == u.End.Pid {
			tc.main, tc.mainWait, tc.mainWaitKnown = t.cpu, t.wait, t.waitKnown
		}
	}
	slices.SortStableFunc(times, func(a, b threadTime) int { return cmp.Compare(b.cpu, a.cpu) })
	tc.loopsKnown = loops > 0
	for _, t := range times[:min(loops, len(times))] {
		tc.loops += t.cpu + t.wait
		tc.loopsKnown = tc.loopsKnown && t.waitKnown
	}
	return tc, true
}

// threadReadings are the thread readings over a run's closed windows, each window's CPU over
// the windows' summed time; loops > 0 (a binding target's loop count) adds the loop busy
// fraction over the windows whose loop threads' waits were read. Nil when no window read the
// threads at both edges.
func threadReadings(windows []Window, loops int) map[string]session.Reading {
	var sum, busy, waited threadCPU
	for _, w := range windows {
		tc, ok := threadsOver(w.Usage, loops)
		if !w.Closed || !ok {
			continue
		}
		sum.wall += tc.wall
		sum.busiest += tc.busiest
		sum.main += tc.main
		if tc.mainWaitKnown {
			waited.wall += tc.wall
			waited.mainWait += tc.mainWait
		}
		if tc.loopsKnown {
			busy.wall += tc.wall
			busy.loops += tc.loops
		}
	}
	if sum.wall <= 0 {
		return nil
	}
	pct := func(cpu float64) float64 { return round.To(cpu/sum.wall*100, 1) }
	out := map[string]session.Reading{
		BusiestThreadReading: {Value: pct(sum.busiest), Label: "busiest thread's CPU, % of one core" + threadsLabel, Context: true},
		MainThreadReading:    {Value: pct(sum.main), Label: "main thread's CPU (tid = pid), % of one core" + threadsLabel, Context: true},
	}
	if waited.wall > 0 {
		out[MainThreadWaitReading] = session.Reading{Value: round.To(waited.mainWait/waited.wall*100, 1),
			Label: "main thread waiting for a CPU, % of the window (from /proc/PID/task/PID/schedstat)", Context: true}
	}
	if busy.wall > 0 {
		out[LoopBusyReading] = session.Reading{Value: loopBusy(busy, loops),
			Label: "loop busy fraction, % of the loops' time (from /proc/PID/task/*/stat and schedstat)", Context: true}
	}
	return out
}

// loopBusy is the binding's loop busy fraction: the time its loops' threads were on a CPU
// (stat) or ready and waiting for one (schedstat's run-queue delay), over the window's time
// times the loops, in %.
//
// A loop is a goroutine, not a thread, but it keeps to one: it keeps its Go processor (P)
// while it runs and while it waits in a raw epoll_pwait, and a goroutine in a cgo call (the
// wait in C) stays on its thread, so the only threads that ever run it are the one it started
// on and, after a wait in Go's netpoller (a loop owed detached answers, docs/scheduler.md),
// another. The loops' threads are the loops threads that used the most CPU in the window: the
// others are the runtime's (sysmon, parked or spinning threads, the template thread) and used
// next to nothing. The collector's work runs on the loop's P, and so on its thread. An idle
// loop sleeps in epoll and counts nowhere. A loop that had work but waited for its CPU
// (another process on it: this 2-core machine is shared) counts as busy, as Node's ELU counts
// a loop the kernel preempted: with CPU time alone a saturated binding read 35-45% beside
// other builds. Only the loops' threads' waits count, as the runtime's threads wait for the
// same CPU at the same time (sysmon waited 0.7 s of a saturated 3 s beside the loop's 1.75 s).
// A loop that moved threads within a window (the netpoller) splits its time and reads low. A
// thread's CPU time is in clock ticks (10 ms), so a 1 s window reads to about ±1% a loop.
func loopBusy(sum threadCPU, loops int) float64 {
	return round.To(sum.loops/(sum.wall*float64(loops))*100, 1)
}
