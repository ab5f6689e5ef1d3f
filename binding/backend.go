package binding

/*
#include "bindrace.h"
*/
import "C"

import (
	"os"
	"runtime"
	"strings"
	"syscall"
	"unsafe"
)

// The native loop's backend is chosen by the environment, once per loop: BINDRACE_LOOP=epoll
// (or unset), uring (io_uring, or Listen fails saying why) or auto (io_uring when the kernel
// allows it, else epoll, said once on stderr). docs/io_uring.md has the design and the numbers.

// loopError words a failed br_loop_new: the core's own line when it refused the loop's backend
// (io_uring asked for and refused, an unknown BINDRACE_LOOP), else the errno.
func loopError(errno syscall.Errno) error {
	v := os.Getenv("BINDRACE_LOOP")
	if v == "" || v == "epoll" || v == "auto" {
		return errno
	}
	note := C.GoString(C.br_loop_backend_note())
	if strings.HasPrefix(note, "BINDRACE_LOOP=") {
		return &backendError{note, errno}
	}
	return errno
}

// backendError is the core's refusal of a loop's backend: its line, unwrapping to the errno.
type backendError struct {
	note  string
	errno syscall.Errno
}

func (e *backendError) Error() string { return e.note }
func (e *backendError) Unwrap() error { return e.errno }

// Backend names the event loop the app's loops run on: "epoll" or "io_uring" ("" before Listen).
func (a *App) Backend() string {
	if len(a.loops) == 0 {
		return ""
	}
	if C.br_loop_backend(a.loops[0].c) == 1 {
		return "io_uring"
	}
	return "epoll"
}

// An io_uring loop with deferred task work (docs/io_uring.md) accepts requests from one OS
// thread only, the one that took its first step, and its completions are posted only while
// that thread is inside io_uring_enter: no poller (epoll on br_loop_fd, Go's netpoller) wakes
// for them. So its goroutine is locked to one thread for its whole life, its raw wait is an
// io_uring_enter on the ring (wait.go), and while answers are owed it waits inside the step
// rather than in the netpoller (noPoller). The goroutine ends still locked, so its thread ends
// with it: nothing the kernel keeps per issuing thread (the ring's registered fd) outlives it.

// uringWait is the raw wait of such a loop: io_uring_enter(fd, embed[0], embed[1], flags, arg,
// argSize), with its timeout (rawWaitMs) and embed (what the last step left it to submit, and
// the completions to wait for) in the loop's C memory. fd is -1 for any other loop.
type uringWait struct {
	fd, flags, arg, argSize uintptr
	embed                   *[2]C.uint
}

// sysIoUringEnter is io_uring_enter's number, the same on every Linux architecture (the
// syscall package predates it).
const sysIoUringEnter = 426

// pin runs first on the loop's goroutine: for a deferred io_uring loop it locks the goroutine
// to its thread and fills uw; every other loop runs as before.
func (l *loop) pin() {
	l.uw = uringWait{fd: ^uintptr(0)}
	var w C.br_uring_wait
	if C.br_loop_uring_wait(l.c, rawWaitMs, &w) != 0 {
		return
	}
	runtime.LockOSThread() // never unlocked: see above
	l.uw = uringWait{fd: uintptr(w.fd), flags: uintptr(w.flags), arg: uintptr(unsafe.Pointer(w.arg)),
		argSize: uintptr(w.arg_size), embed: (*[2]C.uint)(unsafe.Pointer(w.embed))}
	l.noPoller = true
}

// uringDeferred says whether the app's loops run on io_uring with deferred task work.
func (a *App) uringDeferred() bool {
	if len(a.loops) == 0 {
		return false
	}
	var w C.br_uring_wait
	return C.br_loop_uring_wait(a.loops[0].c, rawWaitMs, &w) == 0
}

// backendNote is the core's line for the last br_loop_new: the backend it chose and how.
func backendNote() string { return C.GoString(C.br_loop_backend_note()) }
