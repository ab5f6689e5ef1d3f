package binding

import (
	"runtime"
	"sync"
)

// With Config.OwnProcessor, every running event loop gets a processor (P) of its own on top of
// GOMAXPROCS.
//
// A loop waits for its sockets inside a cgo call, which the Go runtime treats as a system call:
// the loop's thread keeps its P until sysmon takes it away. sysmon takes it after 20 µs when no
// other P is idle, and in any case once the P has not rescheduled for 10 ms. Taking it costs a
// hand-off to a spinning thread that finds nothing to do and sleeps, and the loop's return pays
// to get a P back: about 3,000 instructions on every wake-up of a loop serving one client at a
// time (cachegrind, ping at pipelining 1: 6,620 instructions a response, 3,600 of them the
// runtime's). With a spare P for each loop the first rule never fires, and the loop yields once
// every BR_YIELD_MS (br_batch.yield) so the second does not either. The spare Ps also run the
// goroutines that answer detached responses while the loops wait in C. Go code gets no more
// parallelism than GOMAXPROCS gave it: the loops' threads spend their time in C.
//
// Why it is not the default: sysmon's rules are driven by time, and so are the yields that
// dodge them. Natively a yield every few milliseconds costs nothing measurable; under valgrind,
// where the server runs some 50 times slower, each wakes a thread for the spare P, and
// cachegrind's count of them moves with how long the measurement took: the same build's
// counts spread by 2-4% on a busy machine. The default raw wait (wait.go) keeps the loop's P
// with no spare one, so its yields wake nobody and can be counted in batches.
var procs struct {
	mu    sync.Mutex
	base  int // GOMAXPROCS before the first loop started
	loops int // loops running in this process
}

// addLoopProcs adds n loops (negative: removes them) and sets GOMAXPROCS to base + loops.
func addLoopProcs(n int) {
	if n == 0 {
		return
	}
	procs.mu.Lock()
	defer procs.mu.Unlock()
	if procs.loops == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.loops += n
	runtime.GOMAXPROCS(procs.base + procs.loops)
}
