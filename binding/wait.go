package binding

/*
#include <stdint.h>
#include "bindrace.h"

// Integers for handles, as br_step (loop.go): no cgo pointer checks.
static inline int br_step_ready(uintptr_t l, uintptr_t b, int ready) {
	return br_loop_step_ready((br_loop *)l, (br_batch *)b, ready);
}
*/
import "C"

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
// core, which handles them without polling again. The loop keeps its P, as a goroutine that
// computes does, and pays for that the way one does:
//   - Goroutines that are runnable meanwhile wait for the loop to reschedule. It yields every
//     rawYieldBatches batches when it holds one of the only Ps (with a spare P, a yield would
//     wake a thread to spin; sysmon preempts the loop after 10 ms instead, as any goroutine).
//     The count of batches, not a clock, decides, so a server's instructions per response do
//     not depend on how fast it ran (cachegrind runs it 50 times slower).
//   - A raw wait lasts at most rawWaitMs. After one that saw nothing the loop is idle, and it
//     waits inside the step as before, where the runtime may give its P to others. So does a
//     loop whose events made no batch (static routes, answered in C): such traffic stays in C,
//     and its counts do not depend on when it fell back.
//   - A signal ends the wait early (EINTR): the runtime's preemption and the garbage
//     collector's stop-the-world reach the loop at once.
//
// Config.CgoWait turns it off (every wait inside the step, as before). While detached
// responses are owed the loop waits in the netpoller instead (loop.next), and a loop with
// Config.OwnProcessor or on io_uring waits inside the step.
const (
	rawWaitMs       = 2
	rawYieldBatches = 4
)

// nextRaw steps until the loop hands over a batch (true) or fails (false), waiting in raw
// epoll_pwait calls while it is busy and inside the step once it idles.
func (l *loop) nextRaw() bool {
	var interrupted time.Time // the first signal that ended an empty wait
	for {
		l.stepped = C.br_step_ready(l.cu, l.bu, C.int(l.ready))
		if l.stepped != C.BR_IDLE {
			l.ready = 0
			return l.stepped == 0
		}
		if l.ready > 0 {
			// Events the core answered itself (static routes) or that made no request yet:
			// traffic that needs no Go waits in C, as it always did, and never comes back.
			l.ready = 0
			return l.stepWaiting()
		}
		n, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, l.ep, l.events, C.BR_MAX_EVENTS, rawWaitMs, 0, 0)
		switch {
		case e == 0 && n > 0:
			l.ready = int(n)
		case e == syscall.EINTR:
			// A signal (preemption, the collector, a profiler): step, then wait again, but
			// signals that keep coming must not keep an idle loop here past rawWaitMs.
			if interrupted.IsZero() {
				interrupted = time.Now()
			} else if time.Since(interrupted) > rawWaitMs*time.Millisecond {
				return l.stepWaiting()
			}
		default:
			// Nothing for rawWaitMs (or the wait failed, which the step's own wait reports).
			return l.stepWaiting()
		}
	}
}

// yieldSometimes reschedules the loop every rawYieldBatches batches while it holds one of the
// only Ps, so runnable goroutines get the P and sysmon never needs to preempt it. Whether it
// does (GOMAXPROCS no more than the loops: soleP, set when the loop starts) is read again every
// 64 of those points: reading it takes the scheduler's lock.
func (l *loop) yieldSometimes() {
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
