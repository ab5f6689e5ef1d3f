//go:build linux

package counters

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	perf "github.com/hodgesds/perf-utils"
	"golang.org/x/sys/unix"
)

// Counter names of the system-call probe in Totals.Values.
const (
	// Syscalls counts every system call the server's threads entered (tracepoint
	// raw_syscalls:sys_enter).
	Syscalls = "syscalls"
	// SyscallPrefix + name counts one system call (tracepoint syscalls:sys_enter_<name>).
	SyscallPrefix = "syscall:"
)

// countedSyscalls are the system calls counted one by one: what an event-loop server, Go's
// runtime, libuv and the database client make. Each is a tracepoint of its own, so a call
// costs one event whatever the list's length; registering each one takes the kernel tens of
// milliseconds, which is why the list is not every system call. Calls outside it are the
// "other" row (the total minus these), never dropped.
var countedSyscalls = []string{
	"read", "write", "readv", "writev", "pread64", "pwrite64",
	"recvfrom", "sendto", "recvmsg", "sendmsg", "recvmmsg", "sendmmsg", "sendfile64", "splice",
	"epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "poll", "ppoll", "select", "pselect6",
	"accept", "accept4", "connect", "close", "shutdown", "setsockopt", "getsockopt", "getsockname", "getpeername",
	"futex", "nanosleep", "clock_nanosleep", "sched_yield", "sched_getaffinity",
	"mmap", "munmap", "madvise", "mprotect", "brk",
	"rt_sigprocmask", "rt_sigaction", "rt_sigreturn", "sigaltstack", "tgkill", "getpid", "getppid", "gettid",
	"clock_gettime", "gettimeofday", "getrandom", "eventfd2", "timerfd_settime", "io_uring_enter",
	"openat", "fstat", "newfstatat", "statx", "fcntl", "ioctl",
}

// tracefsDir finds where tracefs is mounted (the tracepoints' ids are read there); a variable
// so that a test can stand for a host without it.
var tracefsDir = perf.TraceFSMount

// OpenSyscalls opens counters of the system calls of every thread of pid (threads created
// later included), in total and by call, with the context switches, off until Enable: the probe a
// measurement opens before its window (registering the tracepoints takes the kernel a second or
// two), enables when the window opens and stops when it closes. Tracepoint events need no PMU.
// Where they cannot be opened (no tracefs, perf_event_paranoid, no permission on tracefs)
// Totals.Unsupported[Syscalls] says why; OpenSyscalls fails only when the process is gone.
func OpenSyscalls(pid int) (EventSet, error) { return openSyscalls(pid, true) }

// StartSyscallTotals counts, from now on, the system calls of every thread of pid in total (one
// tracepoint, registered in milliseconds, so a window can open it as it starts) and the context
// switches: the live-load probe, whose figure a race compares pair by pair. Unsupported as
// OpenSyscalls.
func StartSyscallTotals(pid int) (PerfSession, error) {
	s, err := openSyscalls(pid, false)
	if err != nil {
		return nil, err
	}
	s.Enable()
	return s, nil
}

// openSyscalls opens the total (and with byCall, one event per counted call) and the context
// switches of pid's threads, off.
func openSyscalls(pid int, byCall bool) (*perfSession, error) {
	events := []perfEvent{{ContextSwitches, perf.NewCtxSwitchesProfiler}}
	dir, why := tracepointDir()
	if why == "" {
		var err error
		events, err = appendTracepoints(events, dir, byCall)
		if err != nil {
			why = err.Error()
		}
	}
	s, err := openEvents(pid, events)
	if err != nil {
		return nil, err
	}
	if why != "" {
		s.unsupported[Syscalls] = why
	}
	return s, nil
}

// tracepointDir is the tracefs events directory, or why there is none.
func tracepointDir() (dir, why string) {
	mount, err := tracefsDir()
	if err != nil {
		return "", "no tracefs mounted, so no tracepoint can be named (" + err.Error() + "): as root, `mount -t tracefs nodev /sys/kernel/tracing`, or run `perf stat -e raw_syscalls:sys_enter true` once, which mounts it"
	}
	return filepath.Join(mount, "events"), ""
}

// appendTracepoints adds the total and, with byCall, one event per counted system call the
// kernel has.
func appendTracepoints(events []perfEvent, dir string, byCall bool) ([]perfEvent, error) {
	id, err := tracepointID(dir, "raw_syscalls", "sys_enter")
	if err != nil {
		return events, err
	}
	events = append(events, tracepointEvent(Syscalls, id))
	if !byCall {
		return events, nil
	}
	for _, name := range countedSyscalls {
		id, err := tracepointID(dir, "syscalls", "sys_enter_"+name)
		if err != nil {
			continue // not a system call of this kernel (or architecture)
		}
		events = append(events, tracepointEvent(SyscallPrefix+name, id))
	}
	return events, nil
}

// tracepointID reads a tracepoint's id, the config of its perf event.
func tracepointID(dir, system, event string) (uint64, error) {
	path := filepath.Join(dir, system, event, "id")
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrPermission):
		return 0, fmt.Errorf("tracefs is not readable by this user (%s: permission denied; root only by default)", path)
	case err != nil:
		return 0, fmt.Errorf("no tracepoint %s:%s (%v)", system, event, err)
	}
	return strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
}

// tracepointEvent counts tracepoint id on a thread.
func tracepointEvent(name string, id uint64) perfEvent {
	return perfEvent{name, func(pid, cpu int, opts ...int) (perf.Profiler, error) {
		return perf.NewProfiler(unix.PERF_TYPE_TRACEPOINT, id, pid, cpu, opts...)
	}}
}
