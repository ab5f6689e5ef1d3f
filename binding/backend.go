package binding

/*
#include "bindrace.h"
*/
import "C"

import (
	"fmt"
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
		return fmt.Errorf("binding: %s: %w", note, errno)
	}
	return errno
}

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
