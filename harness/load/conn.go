package load

import (
	"time"

	"golang.org/x/sys/unix"
)

type connState uint8

const (
	csDown       connState = iota // no socket; (re)connect once now >= since and there is work
	csConnecting                  // non-blocking connect in progress since `since`
	csOpen                        // connected; a batch is in flight unless pending == 0
)

// reconnectDelay spaces out attempts after a failed connect, so a dead server costs a few
// attempts per connection per second rather than a busy loop.
const reconnectDelay = 50 * time.Millisecond

// conn is one client connection, owned by exactly one worker and touched by no other
// goroutine, so none of its fields needs synchronisation.
type conn struct {
	fd         int
	gen        uint32 // bumped per socket, so a stale epoll event for a closed one is ignored
	state      connState
	pending    int32 // responses still owed for the batch in flight
	rr         int32 // index in Config.Requests of the next batch's first request
	idx        int32 // position in worker.conns, carried in epoll events
	batchStart int64 // nanotime just before the batch's first write: latency is measured from here
	since      int64 // csConnecting: when it began; csDown: earliest retry
	opened     bool  // a socket was opened for this slot before: the next one is a reconnect
	wrest      []byte
	carry      []byte // unparsed tail of the last read (partial header or line), <= maxHeaderBytes
	f          framer
}

// connect opens c's socket without blocking; completion arrives as EPOLLOUT.
func (w *worker) connect(c *conn, now int64) {
	if w.r.countMode && w.Budget == 0 {
		c.state, c.since = csDown, now // nothing to send; stay closed unless work is re-queued
		return
	}
	fd, err := unix.Socket(w.r.family(), unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		w.connectFailed(c, now)
		return
	}
	// Batches are written whole; Nagle would only hold the rare split remainder back.
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	c.gen++
	// Edge-triggered and registered once for both directions, like Go's own netpoller: no
	// epoll_ctl per batch. EPOLLOUT only fires again after a write found the buffer full.
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: c.idx, Pad: int32(c.gen)}
	if err := unix.EpollCtl(w.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		w.connectFailed(c, now)
		return
	}
	c.fd, c.since = fd, now
	if c.opened && w.r.win.In(now) {
		w.counts.reconnects++
	}
	c.opened = true
	switch err := unix.Connect(fd, w.sa); err {
	case nil:
		c.state = csOpen
		w.LastProgress = now
		w.send(c)
	case unix.EINPROGRESS, unix.EINTR:
		c.state = csConnecting
	default:
		w.closeConn(c)
		w.connectFailed(c, now)
	}
}

// connected finishes a non-blocking connect.
func (w *worker) connected(c *conn, now int64) {
	if e, err := unix.GetsockoptInt(c.fd, unix.SOL_SOCKET, unix.SO_ERROR); err != nil || e != 0 {
		w.closeConn(c)
		w.connectFailed(c, now)
		return
	}
	c.state = csOpen
	w.LastProgress = now
	w.send(c)
}

func (w *worker) connectFailed(c *conn, now int64) {
	w.count(kConnect, now)
	c.state, c.since = csDown, now+int64(reconnectDelay)
}

// closeConn releases the socket (closing also removes it from epoll) and forgets the batch.
func (w *worker) closeConn(c *conn) {
	if c.fd >= 0 {
		unix.Close(c.fd)
	}
	c.fd = -1
	c.state = csDown
	c.pending = 0
	c.wrest = nil
	c.carry = c.carry[:0]
	c.f.reset()
}

// send writes c's next batch: Pipelining requests (fewer at the end of Count mode) in one
// write, as wrk's pipeline.lua does, and starts the batch's latency clock.
func (w *worker) send(c *conn) {
	r := w.r
	n := w.Take(r.cfg.Pipelining)
	if n == 0 {
		return
	}
	s := int(c.rr)
	b := r.batches[s]
	if n < r.cfg.Pipelining {
		b = b[:r.ends[s][n-1]]
	}
	c.rr = int32((s + n) % len(r.cfg.Requests))
	c.pending = int32(n)
	c.batchStart = Nanotime()
	w.write(c, b)
}

// write pushes b out; what the kernel does not take now waits for EPOLLOUT in c.wrest.
func (w *worker) write(c *conn, b []byte) {
	for len(b) > 0 {
		n, e := SysSend(c.fd, b)
		switch e {
		case 0:
			b = b[n:]
		case unix.EINTR:
		case unix.EAGAIN:
			c.wrest = b
			return
		default:
			w.fail(c, kWrite, Nanotime())
			return
		}
	}
	c.wrest = nil
}

// fail counts an error, settles the batch's unanswered requests as lost, and reconnects.
func (w *worker) fail(c *conn, k kind, now int64) {
	w.count(k, now)
	w.Lose(int64(c.pending))
	w.closeConn(c)
	w.connect(c, now)
}

// closedByServer handles a close the server announced (Connection: close, HTTP/1.0, or a
// close-delimited body): not an error. The batch's later requests will never be answered;
// in Count mode they are sent again on the new connection so the total still comes out exact.
func (w *worker) closedByServer(c *conn, now int64) {
	if w.r.countMode {
		w.Budget += int64(c.pending)
	}
	w.closeConn(c)
	w.connect(c, now)
}
