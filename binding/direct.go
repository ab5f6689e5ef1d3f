package binding

/*
#include <stdint.h>
#include <stdlib.h>
#include "bindrace.h"

// What a direct step gets: one block of C memory per loop, so the call carries no Go pointer.
typedef struct {
	br_loop *loop;
	br_batch *batch;
	int ready;
} br_direct_args;

// The trampolines runtime.asmcgocall calls: one pointer argument, an int result. Not static:
// Go takes their addresses.
int br_direct_step(void *p) {
	br_direct_args *a = p;
	return br_loop_step(a->loop, a->batch, 0);
}

int br_direct_step_ready(void *p) {
	br_direct_args *a = p;
	return br_loop_step_ready(a->loop, a->batch, a->ready);
}

// A detached answer for br_loop_complete, in the memory of its Response (response.go).
typedef struct {
	br_loop *loop;
	uint64_t conn;
	uint32_t seq, status, flags;
	const void *head;
	size_t head_len;
	const void *body;
	size_t body_len;
	br_body *shared;
	br_stream *stream;
} br_complete_args;

int br_direct_complete(void *p) {
	br_complete_args *a = p;
	br_loop_complete(a->loop, a->conn, a->seq, a->status, a->flags, a->head, a->head_len, a->body,
	                 a->body_len, a->shared, a->stream);
	return 0;
}
*/
import "C"

import "unsafe"

// Direct steps: the loop's calls into the core that cannot block, made without telling the
// runtime.
//
// A cgo call is a system call to the runtime: entersyscall before it, exitsyscall after it,
// about 270 instructions together, and while it lasts the P is up for grabs. Sysmon looks at
// every running P on each of its ticks, and a P it finds in a cgo call costs it the scheduler's
// lock twice, whose count under cachegrind then grows with the wall time a run took. A step
// that only handles the events the raw wait already has (or sends the last batch's answers, or
// polls without waiting) does bounded work and never blocks, so it need not be a system call:
// runtime.asmcgocall, which cgo itself calls between entersyscall and exitsyscall, runs it on
// the thread's system stack while the goroutine keeps its P, as if it were computing. Ping at
// pipelining 1 on one connection: 3,675 -> about 3,250 instructions a response (docs/scheduler.md).
//
// What it gives up is what a computing goroutine gives up: while the step runs, the collector
// and the scheduler wait for it to return (a step handles at most BR_MAX_EVENTS events). Every
// step that may wait (br_loop_step with wait = 1) stays a cgo call.

// runtime.asmcgocall switches to the system stack, calls fn(arg) with the C calling
// convention, and returns its int result. The linker lets a package reach it because Go code
// calls it through an ABI wrapper (cmd/link's checkLinkname).
//
//go:linkname asmcgocall runtime.asmcgocall
//go:noescape
func asmcgocall(fn, arg unsafe.Pointer) int32

// directArgs is a loop's argument block for its direct steps.
type directArgs = C.br_direct_args

func newDirectArgs(l *C.br_loop, b *C.br_batch) *directArgs {
	a := (*directArgs)(C.calloc(1, C.sizeof_br_direct_args))
	a.loop, a.batch = l, b
	return a
}

func freeDirectArgs(a *directArgs) { C.free(unsafe.Pointer(a)) }

// stepDirect is br_loop_step(wait = 0): apply, send, poll without waiting, hand over a batch.
func stepDirect(a *directArgs) C.int {
	return C.int(asmcgocall(unsafe.Pointer(C.br_direct_step), unsafe.Pointer(a)))
}

// completeArgs is a detached answer for completeDirect.
type completeArgs = C.br_complete_args

// maxDirectAnswer is the largest answer completeDirect copies without telling the runtime: the
// core copies it (and sends what the socket takes) before the call returns, so a bigger one is
// a cgo call, where the collector and the scheduler need not wait for the copy.
const maxDirectAnswer = 64 << 10

// completeDirect is br_loop_complete on the thread's system stack. It never blocks: the answer
// is sent in place on a non-blocking socket or queued for the loop (inbox.cc). Only the args
// block travels, so the call carries no Go pointer for cgo to check, where a cgo call checks the
// head's and the body's (about 250 instructions) and enters and leaves a system call (about
// 270), the first of which wakes sysmon when every P was idle.
func completeDirect(a *completeArgs) {
	asmcgocall(unsafe.Pointer(C.br_direct_complete), unsafe.Pointer(a))
}

// completeCgo is br_loop_complete as a cgo call, for answers over maxDirectAnswer.
func completeCgo(a *completeArgs) {
	C.br_loop_complete(a.loop, a.conn, a.seq, a.status, a.flags, a.head, a.head_len, a.body,
		a.body_len, a.shared, a.stream)
}

// stepReadyDirect is br_loop_step_ready: the same, with the events the raw wait got.
func stepReadyDirect(a *directArgs, ready int) C.int {
	a.ready = C.int(ready)
	return C.int(asmcgocall(unsafe.Pointer(C.br_direct_step_ready), unsafe.Pointer(a)))
}
