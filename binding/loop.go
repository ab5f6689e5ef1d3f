package binding

/*
#include <stdint.h>
#include <stdlib.h>
#include "bindrace.h"

// The step takes its handles as integers: both point into C memory, and a pointer argument
// would cost the runtime's cgo pointer checks (about 140 instructions) on every call.
static inline int br_step(uintptr_t l, uintptr_t b, int wait) {
	return br_loop_step((br_loop *)l, (br_batch *)b, wait);
}
*/
import "C"

import (
	"errors"
	"log"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// The core's step results and limits, as Go constants.
const (
	idle      = C.BR_IDLE       // the step has no batch: wait, then step again
	answered  = C.BR_ANSWERED   // br_loop_step_ready: no batch, but the core answered requests
	maxEvents = C.BR_MAX_EVENTS // the most events one raw wait takes (wait.go)
)

// loop drives one native event loop from one goroutine: one cgo call per iteration applies the
// previous batch's answers and returns the next batch of requests.
//
// Where an idle loop waits depends on whether other goroutines owe it work (App.owed). A
// goroutine blocked in a cgo call keeps its P, and with one P (GOMAXPROCS=1, one loop) a
// detached handler whose database answer is ready then waits for sysmon to take the P back,
// 20 µs to 10 ms later, for every answer. So while anything is owed, the loop parks in Go's
// netpoller on its epoll descriptor and the runtime runs those goroutines meanwhile. When
// nothing is owed it waits inside the step, in the core's epoll_wait: a park costs the Go
// scheduler about 1,500 instructions per idle cycle (cachegrind, ping at 10 requests a batch:
// +7% a response), which a loop whose handlers all answer in place would pay for nothing. A
// parked loop notices that the debt is paid at its next event or timeout sweep.
//
// A parked loop is not woken for the answers it is owed: End applies and sends a detached
// answer in C from its own goroutine's thread while the loop's last step returned BR_IDLE
// (br_loop_complete), so a detached request takes two goroutine switches (the hand-off to the
// worker, the worker's wait for its database), not three (TestDetachedRequestSwitches in
// harness/cmd/binding-server). The next step waits until such an answer is done.
//
//methods:many the Go side of one native event loop: its steps share the loop's private state on the per-request path, as engine.worker's do
type loop struct {
	app   *App
	c     *C.br_loop
	batch *C.br_batch // in C memory: cgo calls carry no Go pointer
	// c and batch as the integers br_step takes.
	cu, bu C.uintptr_t
	// The loop's epoll descriptor (a duplicate) in Go's netpoller, and its raw reads: nil
	// until first needed (openPoller); noPoller if the netpoller refused it.
	poller   *os.File
	rc       syscall.RawConn
	noPoller bool
	stepped  C.int       // the last step's result
	direct   *directArgs // c and batch for the steps that cannot block (direct.go)
	// The raw wait (wait.go): the loop's epoll descriptor and event buffer, what the last wait
	// returned, batches since the last point where the loop may yield, those points so far, and
	// whether it yields at them.
	rawWait     bool
	ep, events  uintptr
	ready       int
	sinceYield  int
	yieldPoints int
	soleP       bool
	uw          uringWait          // an io_uring loop with deferred task work waits here (backend.go)
	stepFn      func(uintptr) bool // l.step, bound once so the hot loop allocates nothing
	req         Request            // reused for every request of this loop
	res         Response           // reused likewise
	lines       headerLines        // the header lines its answers wrote, by position

	// WebSocket sends go into the batch's ws arena while the loop dispatches (dispatching,
	// under wmu, so another goroutine's Send may join the batch too); otherwise to the inbox.
	// The arena is applied before the inbox, so a dispatch uses it only when every send posted
	// before it was applied (useArena); else its sends queue behind them.
	wmu         sync.Mutex
	dispatching bool
	useArena    bool
	wsPosted    uint64 // br_ws_send/br_ws_close calls made, compared with ws_posted_applied
	wsUsed      uint64
	socks       []*WS // open WebSockets by connection index (the id's low 32 bits)

	// Streams waiting for the socket to drain, by token. Any goroutine opens streams.
	smu       sync.Mutex
	streams   map[uint64]*Stream
	nextToken atomic.Uint64

	// Guards the native loop against calls from other goroutines after it is freed.
	amu   sync.RWMutex
	freed bool
	done  chan struct{}
}

// openLoop creates a native loop listening on host:port and its goroutine's side.
func openLoop(a *App, host *C.char, port int) (*loop, error) {
	var cerr C.int
	c := C.br_loop_new(a.c, host, C.int(port), &cerr)
	if c == nil {
		return nil, loopError(syscall.Errno(cerr))
	}
	l := &loop{app: a, c: c, batch: (*C.br_batch)(C.calloc(1, C.sizeof_br_batch)),
		streams: map[uint64]*Stream{}, done: make(chan struct{})}
	l.cu, l.bu = C.uintptr_t(uintptr(unsafe.Pointer(l.c))), C.uintptr_t(uintptr(unsafe.Pointer(l.batch)))
	l.stepFn = l.step
	l.res.l = l // for good: begin sets the rest of the loop's Response for each request
	l.rawWait = !a.own && !a.cgoWait
	l.ep, l.events = uintptr(C.br_loop_fd(c)), uintptr(C.br_loop_events(c))
	l.direct = newDirectArgs(c, l.batch)
	return l, nil
}

// openPoller puts a duplicate of the loop's epoll descriptor into Go's netpoller. It is done
// on first need, so an app whose handlers all answer in place runs with the Go runtime exactly
// as before (not even the netpoller is started for it).
func (l *loop) openPoller() error {
	fd, err := syscall.Dup(int(C.br_loop_fd(l.c)))
	if err != nil {
		return err
	}
	syscall.CloseOnExec(fd)
	// Go's netpoller takes a descriptor only in non-blocking mode; epoll_wait ignores the flag.
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return err
	}
	f := os.NewFile(uintptr(fd), "binding-loop")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return err
	}
	l.poller, l.rc = f, rc
	l.armTimer()
	return nil
}

// step runs one non-blocking native step; false when the loop is idle (wait, then step again).
func (l *loop) step(uintptr) bool {
	l.stepped = stepDirect(l.direct)
	return l.stepped != idle
}

// stepWaiting steps, waiting inside the step until it has a batch (true) or fails (false).
func (l *loop) stepWaiting() bool {
	l.stepped = C.br_step(l.cu, l.bu, 1)
	return l.stepped == 0
}

// next steps until the loop hands over a batch (true) or fails (false). While other goroutines
// owe the loop work it parks in the netpoller when idle; the read deadline wakes it when the
// loop's timeout sweep is due.
func (l *loop) next() bool {
	for {
		if l.rawWait && l.app.owed.Load() == 0 {
			return l.nextRaw()
		}
		if l.app.owed.Load() == 0 || l.noPoller {
			return l.stepWaiting()
		}
		if l.rc == nil {
			if err := l.openPoller(); err != nil {
				// Still correct, only slower for the goroutines that owe answers.
				log.Printf("binding: event loop: the netpoller refused its epoll descriptor (%v); idle loops wait in C", err)
				l.noPoller = true
				continue
			}
		}
		err := l.rc.Read(l.stepFn)
		if err == nil {
			return l.stepped == 0
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			log.Printf("binding: event loop: %v", err)
			return false
		}
		l.armTimer()
	}
}

func (l *loop) armTimer() {
	l.poller.SetReadDeadline(time.Now().Add(time.Duration(C.br_loop_timer_ms(l.c)+1) * time.Millisecond))
}

func (l *loop) run() {
	defer close(l.done)
	l.pin()
	l.soleP = runtime.GOMAXPROCS(0) <= len(l.app.loops)
	for {
		b := l.batch
		if !l.next() {
			return
		}
		if b.yield != 0 && l.app.own {
			runtime.Gosched() // see procs.go
		}
		if l.rawWait {
			l.yieldSometimes()
		}
		if b.n_wakes > 0 {
			l.wake(unsafe.Slice((*uint64)(unsafe.Pointer(b.wakes)), int(b.n_wakes)))
		}
		if b.done != 0 {
			return
		}
		n, nws := int(b.n), int(b.n_ws)
		if n == 0 && nws == 0 {
			continue
		}
		l.res.headEnd, l.res.bodyEnd = 0, 0 // the batch's arenas are empty: its first answer starts at 0
		l.wmu.Lock()
		l.dispatching, l.wsUsed = true, 0
		l.useArena = l.wsPosted == uint64(b.ws_posted_applied)
		l.wmu.Unlock()
		if n > 0 {
			reqs, resps := unsafe.Slice(b.reqs, n), unsafe.Slice(b.resps, n)
			for i := 0; i < n; {
				i = l.serveFrom(reqs, resps, i)
			}
		}
		if nws > 0 {
			l.wsDispatch(unsafe.Slice(b.ws, nws))
		}
		l.wmu.Lock()
		l.dispatching = false
		b.ws_used = C.uint64_t(l.wsUsed)
		l.wmu.Unlock()
	}
}

// serveFrom serves a batch's requests from i on and returns where it stopped: the batch's end,
// or the request after one whose handler panicked (answered 500). One deferred recover covers
// the requests it serves, so a batch pays for it once, not once a request (about 38
// instructions a response at pipelining 10: loop.recover, gorecover and the defer's wrapper).
// Each request is served in the loop itself, not through a call of its own (about 10
// instructions a response: the call, its frame, the arguments reloaded after it); the routes
// are fixed once the app listens (ErrStarted).
func (l *loop) serveFrom(reqs []C.br_request, resps []C.br_response, i int) (next int) {
	defer func() {
		if e := recover(); e != nil {
			l.recovered(e)
			next = i + 1
		}
	}()
	r, w, routes := &l.req, &l.res, l.app.routes
	for ; i < len(reqs); i++ {
		cr := &reqs[i]
		rt := &routes[cr.route]
		r.c, r.rt = cr, rt
		w.begin(cr, &resps[i])
		rt.h(w, r)
		w.finish()
	}
	return i
}

// recovered turns a handler's panic into a 500 for its request (the loop's response); the loop
// goes on.
func (l *loop) recovered(e any) {
	logPanic(e)
	w := &l.res
	if w.state == resFinished {
		return
	}
	w.status = 500
	w.headEnd, w.bodyEnd = w.headOff, w.bodyOff // the next answer writes over this one's bytes
	w.shared, w.stream = nil, nil
	w.finish()
}

func logPanic(e any) { log.Printf("binding: handler panic: %v\n%s", e, debug.Stack()) }

func (l *loop) wake(tokens []uint64) {
	l.smu.Lock()
	for _, t := range tokens {
		if s := l.streams[t]; s != nil {
			select {
			case s.wake <- struct{}{}:
			default:
			}
		}
	}
	l.smu.Unlock()
}

// arena returns the head (which=0) or body arena with room for need more bytes past used.
func (l *loop) arena(which int, used, need uint64) []byte {
	b := l.batch
	pick := func() (*C.char, C.uint64_t) {
		switch which {
		case 1:
			return b.body_arena, b.body_cap
		case 2:
			return b.ws_arena, b.ws_cap
		}
		return b.head_arena, b.head_cap
	}
	p, c := pick()
	if used+need > uint64(c) {
		C.br_loop_grow(l.c, b, C.int(which), C.uint64_t(used), C.uint64_t(need))
		p, c = pick()
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(c))
}

// headRoom is the n bytes of the batch's head arena past used, growing the arena when they are
// not there. It and bodyRoom are the answers' way into the arenas: they read the batch's arena
// and capacity at every call (the core may move an arena between steps, and a grow moves it),
// and when there is room they call nothing, where arena, which is not inlined, cost about 13
// instructions a call (two a response on ping). They are inlined only while within the
// inliner's budget of 80 (they cost 79: -gcflags=-m=2 says): the batch is read twice rather
// than kept in a variable, and the grow is a call. used+n <= cap is checked before the slice
// is made, so it needs no bounds check of its own.
func (l *loop) headRoom(used, n uint64) []byte {
	if used+n <= uint64(l.batch.head_cap) {
		return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(l.batch.head_arena), used)), n)
	}
	return l.grow(0, used, n)
}

// bodyRoom is headRoom for the body arena.
func (l *loop) bodyRoom(used, n uint64) []byte {
	if used+n <= uint64(l.batch.body_cap) {
		return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(l.batch.body_arena), used)), n)
	}
	return l.grow(1, used, n)
}

// grow makes room for need bytes past used in the head (which=0) or body arena, keeping the
// used bytes, and returns those need bytes (arena grows it; the batch then holds its new place
// and capacity). Not inlined, so that headRoom and bodyRoom are.
//
//go:noinline
func (l *loop) grow(which int, used, need uint64) []byte {
	return l.arena(which, used, need)[used : used+need]
}

// locked runs f with the native loop alive, from any goroutine; false if it is gone.
func (l *loop) locked(f func()) bool {
	l.amu.RLock()
	defer l.amu.RUnlock()
	if l.freed {
		return false
	}
	f()
	return true
}

func (l *loop) free() {
	l.amu.Lock()
	l.freed = true
	if l.poller != nil {
		l.poller.Close()
	}
	C.br_loop_free(l.c)
	C.free(unsafe.Pointer(l.batch))
	freeDirectArgs(l.direct)
	l.amu.Unlock()
	l.smu.Lock()
	for _, s := range l.streams {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	l.smu.Unlock()
}
