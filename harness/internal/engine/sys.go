package engine

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The hot path talks to the kernel with raw syscalls. Every socket is non-blocking, so read,
// send and a zero-timeout epoll_wait return at once; syscall.Syscall's entersyscall/exitsyscall
// bookkeeping (handing the P to another thread in case the call blocks) would be pure overhead
// on them, paid three times per batch. Only the epoll_wait that may sleep uses the regular,
// scheduler-aware path.

// sysRead reads into p.
func sysRead(fd int, p []byte) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	return int(r), e
}

// sysSend writes with MSG_NOSIGNAL: a peer that went away yields EPIPE, not a signal.
func sysSend(fd int, p []byte) (int, syscall.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)),
		unix.MSG_NOSIGNAL, 0, 0)
	return int(r), e
}

// pollNow returns ready events without sleeping.
func pollNow(epfd int, evs []unix.EpollEvent) int {
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(unsafe.SliceData(evs))),
		uintptr(len(evs)), 0, 0, 0)
	if e != 0 {
		return 0
	}
	return int(r)
}

// pollWait sleeps up to ms milliseconds for events, letting the Go scheduler use the CPU.
func pollWait(epfd int, evs []unix.EpollEvent, ms int) int {
	n, err := unix.EpollWait(epfd, evs, ms)
	if err != nil { // EINTR, e.g. from the runtime's preemption signal
		return 0
	}
	return n
}
