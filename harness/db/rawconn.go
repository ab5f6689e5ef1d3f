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
	// A read and a write may run at once (pgx's background reader reads while a query is
	// written), so each has its own state and its callback, bound once: a call allocates nothing.
	rd, wr          rawOp
	readFn, writeFn func(fd uintptr) bool
}

// rawOp is one read or write in progress: its buffer, the bytes done, the call's error.
type rawOp struct {
	p     []byte
	n     int
	errno syscall.Errno
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
	r := &rawConn{Conn: c, rc: rc}
	r.readFn, r.writeFn = r.readOnce, r.writeAll
	return r
}

func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.rd = rawOp{p: p}
	err := c.rc.Read(c.readFn)
	op := c.rd
	c.rd.p = nil
	switch {
	case err != nil:
		return 0, err // the RawConn's own: a deadline, a closed connection
	case op.errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", op.errno))
	case op.n == 0:
		return 0, io.EOF
	}
	return op.n, nil
}

// readOnce reads once into c.rd.p; false on EAGAIN, to wait until the socket is readable.
func (c *rawConn) readOnce(fd uintptr) bool {
	p := c.rd.p
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		switch e {
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.rd.n, c.rd.errno = int(n), e
			return true
		}
	}
}

func (c *rawConn) Write(p []byte) (int, error) {
	c.wr = rawOp{p: p}
	err := c.rc.Write(c.writeFn)
	op := c.wr
	c.wr.p = nil
	switch {
	case err != nil:
		return op.n, err
	case op.errno != 0:
		return op.n, c.opError("write", os.NewSyscallError("write", op.errno))
	}
	return op.n, nil
}

// writeAll writes what is left of c.wr.p; false on EAGAIN, to wait until the socket is writable.
func (c *rawConn) writeAll(fd uintptr) bool {
	p := c.wr.p
	for c.wr.n < len(p) {
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[c.wr.n])), uintptr(len(p)-c.wr.n))
		switch e {
		case 0:
			c.wr.n += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			c.wr.errno = e
			return true
		}
	}
	return true
}

func (c *rawConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}
