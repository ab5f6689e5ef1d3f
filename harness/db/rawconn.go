package db

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawConn is a database connection whose reads and writes are raw system calls.
//
// A Go socket read or write tells the runtime it enters a system call, and the first one after
// every Ps went idle wakes sysmon from its deep sleep; woken by a system call, sysmon polls every
// 20 µs for a millisecond before it backs off. On a server that idles between requests that
// happens on nearly every request: 17% of the server's CPU on get-user at 10 connections, on
// every target (perf --sample, docs/database.md). A non-blocking socket's read and write never
// block, so they need not tell the runtime: they run as raw calls inside the socket's RawConn,
// which parks the goroutine in the netpoller on EAGAIN and keeps the connection's deadlines,
// the way the standard read and write do. Every target's pool uses it, so the database costs
// each the same.
type rawConn struct {
	net.Conn
	rc syscall.RawConn
}

// RawSocket wraps c, when it is a socket with a RawConn (TCP, Unix), in a net.Conn whose reads
// and writes the runtime does not see as system calls; any other c it returns as is. Every
// pool NewQueries opens uses it.
func RawSocket(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	return &rawConn{Conn: c, rc: rc}
}

func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n uintptr
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			if errno != syscall.EINTR {
				return errno != syscall.EAGAIN
			}
		}
	})
	switch {
	case err != nil:
		return 0, err // the RawConn's own: a deadline, a closed connection
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return int(n), nil
}

func (c *rawConn) Write(p []byte) (int, error) {
	done := 0
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for done < len(p) {
			n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
			switch e {
			case 0:
				done += int(n)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until the socket is writable
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return done, err
	case errno != 0:
		return done, c.opError("write", os.NewSyscallError("write", errno))
	}
	return done, nil
}

func (c *rawConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
