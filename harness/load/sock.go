package load

import (
	"time"

	"golang.org/x/sys/unix"
)

// The socket handling both generators' workers share (harness/wsload builds its workers the
// same way): opening and registering a connection's socket, connecting it without blocking,
// writing to it, and waiting for events.

const (
	// SweepEvery is how often a worker checks timeouts and reconnects, and the longest it
	// sleeps in epoll_wait, so stop and cancellation are seen within this time.
	SweepEvery = 10 * time.Millisecond
	// ReconnectDelay spaces out attempts after a failed connect (or WebSocket upgrade), so a
	// dead or refusing server costs a few attempts per connection per second rather than a
	// busy loop.
	ReconnectDelay = 50 * time.Millisecond
	// MaxEvents is how many events one epoll_wait returns at the most.
	MaxEvents = 256
)

// Sock is the socket of one of a worker's connections. The worker owns it, and no other
// goroutine touches it, so none of its fields needs synchronisation.
type Sock struct {
	FD     int    // -1: no socket
	Gen    uint32 // bumped per socket, so a stale epoll event for a closed one is ignored
	Idx    int32  // position in the worker's connections, carried in epoll events
	opened bool   // a socket was opened for this slot before: the next one is a reconnect
}

// Init readies the Sock of the worker's connection at idx: no socket yet.
func (s *Sock) Init(idx int) { s.FD, s.Idx = -1, int32(idx) }

// DialResult is how Dial went.
type DialResult uint8

const (
	DialFailed  DialResult = iota // no socket is open: count a connect error, retry later
	DialDone                      // connected already
	DialPending                   // connecting; completion arrives as EPOLLOUT (see ConnectFailed)
)

// Dial opens a new non-blocking TCP socket of family for s, registers it with epfd (events
// carry Idx and the new Gen in Fd and Pad), and starts connecting it to sa without blocking.
// reopened says the slot had a socket before and the new one got as far as epoll: a
// reconnect, even if the connect then failed at once.
func (s *Sock) Dial(epfd, family int, sa unix.Sockaddr) (res DialResult, reopened bool) {
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return DialFailed, false
	}
	// Batches are written whole; Nagle would only hold a split remainder (or a pong) back.
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	// Edge-triggered and registered once for both directions, like Go's own netpoller: no
	// epoll_ctl per batch. EPOLLOUT only fires again after a write found the buffer full.
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET, Fd: s.Idx, Pad: int32(s.Gen + 1)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		unix.Close(fd)
		return DialFailed, false
	}
	s.FD, s.Gen = fd, s.Gen+1
	reopened, s.opened = s.opened, true
	switch err := unix.Connect(fd, sa); err {
	case nil:
		return DialDone, reopened
	case unix.EINPROGRESS, unix.EINTR:
		return DialPending, reopened
	}
	s.Close()
	return DialFailed, reopened
}

// ConnectFailed reports whether the non-blocking connect Dial started ended in an error.
func (s *Sock) ConnectFailed() bool {
	e, err := unix.GetsockoptInt(s.FD, unix.SOL_SOCKET, unix.SO_ERROR)
	return err != nil || e != 0
}

// Close releases the socket, if any; closing also removes it from epoll.
func (s *Sock) Close() {
	if s.FD >= 0 {
		unix.Close(s.FD)
	}
	s.FD = -1
}

// Write pushes b out: rest is what the kernel did not take now (nil once all of b went), to
// write again on EPOLLOUT; ok is false when the send failed.
func (s *Sock) Write(b []byte) (rest []byte, ok bool) {
	for len(b) > 0 {
		n, e := SysSend(s.FD, b)
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

// Poll returns the events ready on epfd, waiting up to SweepEvery for some. Under load events
// are nearly always ready: it asks without the scheduler hand-off first.
func Poll(epfd int, evs []unix.EpollEvent) []unix.EpollEvent {
	n := PollNow(epfd, evs)
	if n == 0 {
		n = PollWait(epfd, evs, int(SweepEvery/time.Millisecond))
	}
	return evs[:n]
}
