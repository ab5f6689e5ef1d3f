package engine

import (
	"time"

	"golang.org/x/sys/unix"
)

// The socket handling of a worker's connections: opening and registering a connection's
// socket, connecting it without blocking, writing to it, and waiting for events.

const (
	// sweepEvery is how often a worker checks timeouts and reconnects, and the longest it
	// sleeps in epoll_wait, so stop and cancellation are seen within this time.
	sweepEvery = 10 * time.Millisecond
	// reconnectDelay spaces out attempts after a failed connect (or WebSocket upgrade), so a
	// dead or refusing server costs a few attempts per connection per second rather than a
	// busy loop.
	reconnectDelay = 50 * time.Millisecond
	// maxEvents is how many events one epoll_wait returns at the most.
	maxEvents = 256
)

// sock is the socket of one of a worker's connections. The worker owns it, and no other
// goroutine touches it, so none of its fields needs synchronisation.
type sock struct {
	fd     int    // -1: no socket
	gen    uint32 // bumped per socket, so a stale epoll event for a closed one is ignored
	idx    int32  // position in the worker's connections, carried in epoll events
	opened bool   // a socket was opened for this slot before: the next one is a reconnect
}

// init readies the sock of the worker's connection at idx: no socket yet.
func (s *sock) init(idx int) { s.fd, s.idx = -1, int32(idx) }

// dialResult is how dial went.
type dialResult uint8

const (
	dialFailed  dialResult = iota // no socket is open: count a connect error, retry later
	dialDone                      // connected already
	dialPending                   // connecting; completion arrives as EPOLLOUT (see connectFailed)
)

// dial opens a new non-blocking TCP socket of family for s, registers it with epfd (events
// carry idx and the new gen in Fd and Pad), and starts connecting it to sa without blocking.
// reopened says the slot had a socket before and the new one got as far as epoll: a
// reconnect, even if the connect then failed at once.
func (s *sock) dial(epfd, family int, sa unix.Sockaddr) (res dialResult, reopened bool) {
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return dialFailed, false
	}
	// Batches are written whole; Nagle would only hold a split remainder (or a pong) back.
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	// Edge-triggered and registered once for both directions, like Go's own netpoller: no
	// epoll_ctl per batch. EPOLLOUT only fires again after a write found the buffer full.
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: s.idx, Pad: int32(s.gen + 1)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		return dialFailed, false
	}
	s.fd, s.gen = fd, s.gen+1
	reopened, s.opened = s.opened, true
	switch err := unix.Connect(fd, sa); err {
	case nil:
		return dialDone, reopened
	case unix.EINPROGRESS, unix.EINTR:
		return dialPending, reopened
	}
	s.close()
	return dialFailed, reopened
}

// connectFailed reports whether the non-blocking connect dial started ended in an error.
func (s *sock) connectFailed() bool {
	e, err := unix.GetsockoptInt(s.fd, unix.SOL_SOCKET, unix.SO_ERROR)
	return err != nil || e != 0
}

// close releases the socket, if any; closing also removes it from epoll.
func (s *sock) close() {
	if s.fd >= 0 {
		unix.Close(s.fd)
	}
	s.fd = -1
}

// write pushes b out: rest is what the kernel did not take now (nil once all of b went), to
// write again on EPOLLOUT; ok is false when the send failed.
func (s *sock) write(b []byte) (rest []byte, ok bool) {
	for len(b) > 0 {
		n, e := sysSend(s.fd, b)
		switch e {
		case 0:
			b = b[n:]
		case unix.EINTR:
		case unix.EAGAIN:
			return b, true
		default:
			return nil, false
		}
	}
	return nil, true
}

// pollEvents returns the events ready on epfd, waiting up to sweepEvery for some. Under load events
// are nearly always ready: it asks without the scheduler hand-off first.
func pollEvents(epfd int, evs []unix.EpollEvent) []unix.EpollEvent {
	n := pollNow(epfd, evs)
	if n == 0 {
		n = pollWait(epfd, evs, int(sweepEvery/time.Millisecond))
	}
	return evs[:n]
}
