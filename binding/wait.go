package binding

import (
	"runtime"
	"syscall"
	"time"
)

// The raw wait: how an idle loop waits without the Go runtime taking its processor.
//
// A loop that waits inside a cgo call is in a system call as far as the runtime knows, and
// sysmon takes that thread's processor (P) away once the call has lasted 20 µs while no other
// P is idle, which is always so on a server given one CPU: a hand-off to a thread that finds
// nothing to do, and on the loop's return a wait to get a P back. One client sending one
// request at a time paid that on every request, about 3,000 instructions of the runtime's
// scheduler and five more system calls (docs/scheduler.md).
//
// So the loop waits in Go instead: epoll_pwait on the core's descriptor through
// syscall.RawSyscall6, which does not tell the runtime it is in a system call, into the
// core's event buffer (br_loop_events); then br_loop_step_ready hands those events to the
// core, which handles them without polling again, in a direct step (direct.go), not a cgo
// call. The loop keeps its P, as a goroutine that computes does, and pays for that the way
// one does:
//   - Goroutines that are runnable meanwhile wait for the loop to reschedule. It yields every
//     rawYieldBatches batches when it holds one of the only Ps (with a spare P, a yield would
//     wake a thread to spin; sysmon preempts the loop after 10 ms instead, as any goroutine).
//     The count of batches, not a clock, decides, so a server's instructions per response do
//     not depend on how fast it ran (cachegrind runs it 50 times slower).
//   - A raw wait lasts at most rawWaitMs (10 ms, sysmon's preemption period). After one that
//     saw nothing the loop is idle, and it waits inside the step as before, where the runtime
//     may give its P to others. Goroutines of the same process that become runnable while the
//     loop raw-waits wait for it as for a goroutine that computes: until it yields, goes idle,
//     or is preempted (sysmon's signal ends the wait: EINTR), about 10 ms at most; those the
//     netpoller readies, for sysmon's poll, also every 10 ms. The wait is that long so that
//     what the loop does per request does not depend on the client's pauses: a loaded machine
//     stalls a client for a few milliseconds, and going idle costs a hand-off of the P, then
//     sysmon's burst of 20 µs ticks (some 50,000 instructions under cachegrind). With 2 ms the
//     counts depended on the load (docs/scheduler.md).
//   - Traffic the core answers itself (static routes, errors: br_loop_step_ready returns
//     BR_ANSWERED) waits inside the step: the core serves it there without a trip out per
//     request, and it never comes back.
//   - A signal ends the wait early (EINTR): the runtime's preemption and the garbage
//     collector's stop-the-world reach the loop at once.
//
// Config.CgoWait turns it off (every wait inside the step, as before). While detached
// responses are owed the loop parks in the netpoller at once (loop.next), and a loop with
// Config.OwnProcessor waits inside the step. An io_uring loop without deferred task work waits
// the same way: its epoll descriptor holds the ring's, which polls readable when completions
// are ready. One with deferred task work raw-waits in io_uring_enter instead, on its locked
// thread, the only place its completions are posted (backend.go), and waits inside the step
// while answers are owed.
const (
	rawWaitMs       = 10
	rawYieldBatches = 4
)

// nextRaw steps until the loop hands over a batch (true) or fails (false), waiting in raw
// epoll_pwait calls while it is busy and inside the step once one saw nothing for rawWaitMs.
func (l *loop) nextRaw() bool {
	var interrupted time.Time // the first signal that ended an empty wait
	for {
		l.stepped = stepReadyDirect(l.direct, l.ready)
		l.ready = 0
		switch l.stepped {
		case idle:
		case answered:
			return l.stepWaiting() // traffic that needs no Go stays in C
		default:
			return l.stepped == 0
		}
		n, e := l.rawWaitOnce()
		switch {
		case e == 0 && n > 0:
			l.ready = int(n)
		case e == 0:
			return l.stepWaiting() // idle
		case e == syscall.EINTR:
			// A signal (preemption, the collector, a profiler): step, then wait again, but
			// signals that keep coming must not keep an idle loop out of the C wait.
			if interrupted.IsZero() {
				interrupted = time.Now()
			} else if time.Since(interrupted) > rawWaitMs*time.Millisecond {
				return l.stepWaiting()
			}
		default:
			return l.stepWaiting() // which reports the failure
		}
	}
}

// yieldSometimes reschedules the loop every rawYieldBatches batches while it holds one of the
// only Ps, so runnable goroutines get the P and sysmon never needs to preempt it. Whether it
// does (GOMAXPROCS no more than the loops: soleP, set when the loop starts) is read again every
// 64 of those points: reading it takes the scheduler's lock.
//
// A loop locked to its thread (a deferred io_uring loop, backend.go) never yields: the runtime
// cannot run a locked goroutine's thread for anyone else, so each Gosched would hand the P to
// another thread and back, two futex wake-ups and two context switches (0.9 futex calls per
// response at pipelining 1 when it yielded every 4 batches). Sysmon preempts it after 10 ms
// instead, as a loop with a spare P.
func (l *loop) yieldSometimes() {
	if l.uw.fd != ^uintptr(0) {
		return
	}
	l.sinceYield++
	if l.sinceYield < rawYieldBatches {
		return
	}
	l.sinceYield = 0
	if l.yieldPoints++; l.yieldPoints%64 == 0 {
		l.soleP = runtime.GOMAXPROCS(0) <= len(l.app.loops)
	}
	if l.soleP {
		runtime.Gosched()
	}
}

// rawWaitOnce is one raw wait of up to rawWaitMs: epoll_pwait on the loop's descriptor (the
// events it returned), or for a deferred io_uring loop io_uring_enter on the ring, which runs
// the deferred task work and returns once a completion is posted (1) or at its timeout (0). The
// step before it may have left its quiet sends for that enter to submit, with one completion
// more to wait for than they post (br_loop_uring_wait); an enter that submitted returns their
// count even when its wait timed out or was interrupted, which reads as ready (1): the step
// then reaps what they posted.
func (l *loop) rawWaitOnce() (uintptr, syscall.Errno) {
	if l.uw.fd == ^uintptr(0) {
		n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, l.ep, l.events, maxEvents, rawWaitMs, 0, 0)
		return n, e
	}
	_, _, e := syscall.RawSyscall6(sysIoUringEnter, l.uw.fd, uintptr(l.uw.embed[0]), uintptr(l.uw.embed[1]),
		l.uw.flags, l.uw.arg, l.uw.argSize)
	switch e {
	case 0:
		return 1, 0
	case syscall.ETIME:
		return 0, 0
	}
	return 0, e
}
