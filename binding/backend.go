package binding

/*
#include "bindrace.h"
*/
import "C"

import (
	"os"
	"strings"
	"syscall"
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
