package binding

/*
#include <stdlib.h>
#include "bindrace.h"
*/
import "C"

import (
	"log"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"
)

// loop drives one native event loop from one locked goroutine: one cgo call per iteration
// applies the previous batch's answers and returns the next batch of requests.
type loop struct {
	app   *App
	c     *C.br_loop
	batch *C.br_batch // in C memory: cgo calls carry no Go pointer
	req   Request     // reused for every request of this loop
	res   Response    // reused likewise
	// Arena bytes used by the answers written so far in this batch.
	headUsed, bodyUsed uint64

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

func newLoop(a *App, c *C.br_loop) *loop {
	return &loop{app: a, c: c, batch: (*C.br_batch)(C.calloc(1, C.sizeof_br_batch)),
		streams: map[uint64]*Stream{}, done: make(chan struct{})}
}

func (l *loop) run() {
	runtime.LockOSThread() // the native loop and its thread-local state stay on one thread
	defer close(l.done)
	for {
		b := l.batch
		if C.br_loop_step(l.c, b) != 0 {
			return
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
		l.headUsed, l.bodyUsed = 0, 0
		l.wmu.Lock()
		l.dispatching, l.wsUsed = true, 0
		l.useArena = l.wsPosted == uint64(b.ws_posted_applied)
		l.wmu.Unlock()
		if n > 0 {
			reqs := unsafe.Slice(b.reqs, n)
			resps := unsafe.Slice(b.resps, n)
			for i := range reqs {
				l.serve(&reqs[i], &resps[i])
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

func (l *loop) serve(cr *C.br_request, out *C.br_response) {
	rt := &l.app.routes[cr.route]
	r, w := &l.req, &l.res
	r.c, r.rt = cr, rt
	w.begin(l, cr, out)
	defer l.recover(w)
	rt.h(w, r)
	w.finish()
}

// recover turns a handler panic into a 500 for that request; the loop goes on.
func (l *loop) recover(w *Response) {
	if e := recover(); e != nil {
		logPanic(e)
		if w.state == resFinished {
			return
		}
		w.status = 500
		w.headEnd, w.bodyEnd = w.headOff, w.bodyOff
		l.headUsed, l.bodyUsed = w.headOff, w.bodyOff
		w.shared, w.stream = nil, nil
		w.finish()
	}
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
	C.br_loop_free(l.c)
	C.free(unsafe.Pointer(l.batch))
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
