// Package threadname runs a function on an OS thread of its own, named: the tests of /proc's
// thread readers find a thread by a name they chose (spaces, parentheses, a newline).
package threadname

import (
	"runtime"
	"syscall"
	"unsafe"
)

// On runs f on a locked OS thread named name (the kernel keeps 15 bytes of it) and returns the
// thread's id once f has returned. The old name is put back after f: the goroutine may run on
// the main thread, whose name is the process's.
func On(name string, f func()) (tid int) {
	done := make(chan int)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var old [16]byte
		syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_NAME, uintptr(unsafe.Pointer(&old[0])), 0)
		b := append([]byte(name), 0)
		syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_NAME, uintptr(unsafe.Pointer(&b[0])), 0)
		f()
		syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_NAME, uintptr(unsafe.Pointer(&old[0])), 0)
		done <- syscall.Gettid()
	}()
	return <-done
}
