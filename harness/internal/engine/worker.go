package engine

import (
	"math"
	"runtime"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// A worker is one goroutine running its own epoll loop over its share of the connections,
// the way each wrk thread runs its own ae loop: no goroutine per connection, no channel or lock
// per response, and all counters private until the run ends.

const (
	// readChunk is how much one read asks for. Ten pipelined responses are well under a KiB;
	// the rest serves large bodies in few syscalls.
	readChunk = 64 << 10
	// maxCarry bounds what a protocol may leave unparsed between reads (a partial header
	// block); the read buffer keeps that much room in front of each read, so the carried
	// bytes and their continuation are contiguous without moving the new data.
	maxCarry = maxHeaderBytes
)

//methods:many the epoll loop of one goroutine: its steps share the worker's private state on the per-response path
type worker struct {
	r     *runner
	sa    unix.Sockaddr // the worker's own copy: unix.Connect writes into it
	epfd  int
	conns []conn
	evs   []unix.EpollEvent
	buf   []byte // maxCarry bytes of room, then readChunk for the read
	// in says the read being handled arrived in the measured window.
	in        bool
	counts    counts // measured window only
	batches   int    // connections with requests in flight
	lastSweep int64
	// Open loop: when the next request of a connection with room falls due, and the send
	// lag of the requests that left (µs, window only).
	nextDue int64
	lag     *hdrhistogram.Histogram
	tally   // answers and their latencies; Count mode's requests
}

// newWorkers makes the run's workers, each with its share of the connections and of the
// count. On an error the ones already made are shut down.
func newWorkers(r *runner) ([]*worker, error) {
	ws := make([]*worker, 0, r.cfg.Workers)
	for i := range r.cfg.Workers {
		w, err := newWorker(r, i)
		if err != nil {
			shutdown(ws)
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

func newWorker(r *runner, i int) (*worker, error) {
	nconns, share := r.cfg.share(i)
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w := &worker{
		r:     r,
		sa:    r.sockaddr(),
		epfd:  epfd,
		conns: make([]conn, nconns),
		evs:   make([]unix.EpollEvent, maxEvents),
		buf:   make([]byte, maxCarry+readChunk),
		tally: newTally(r.countMode, share),
		lag:   r.newLagHistogram(),
	}
	sessions := r.proto.sessions(nconns)
	for i := range w.conns {
		c := &w.conns[i]
		c.init(i)
		c.start, c.sent = make([]int64, r.cfg.Pipelining), make([]int64, r.cfg.Pipelining)
		c.s = sessions[i]
	}
	if r.open {
		// The run's connections before this worker's: workers 0..i-1 took theirs.
		w.startSchedule(i*(r.cfg.Connections/r.cfg.Workers) + min(i, r.cfg.Connections%r.cfg.Workers))
	}
	return w, nil
}

// shutdown closes every worker's connections and epoll instance.
func shutdown(ws []*worker) {
	for _, w := range ws {
		for i := range w.conns {
			w.closeConn(&w.conns[i])
		}
		unix.Close(w.epfd)
	}
}

// run is the worker's event loop: until the window stops, or in Count mode until its share is
// settled.
func (w *worker) run() {
	if w.r.open {
		// The loop sleeps until the next request falls due: on a thread of its own whose
		// timers the kernel does not defer by the default 50 µs slack, which would be send lag.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	}
	now := nanotime()
	w.lastProgress, w.lastSweep = now, now
	for i := range w.conns {
		w.connect(&w.conns[i], now)
	}
	for !w.r.win.stopped() && !w.settled() {
		if w.r.open && nanotime() >= w.nextDue {
			w.dispatch()
		}
		w.poll()
		w.publish()
		if now = nanotime(); now-w.lastSweep >= int64(sweepEvery) {
			w.sweep(now)
		}
	}
	w.publish()
}

// poll handles one round of socket events.
func (w *worker) poll() {
	var evs []unix.EpollEvent
	if w.r.open {
		evs = pollUntil(w.epfd, w.evs, w.nextDue)
	} else {
		evs = pollEvents(w.epfd, w.evs)
	}
	if len(evs) > 0 && w.r.win.in(nanotime()) {
		w.counts.wakeups++
		w.counts.inFlight += int64(w.batches)
	}
	for i := range evs {
		ev := &evs[i]
		c := &w.conns[ev.Fd]
		if uint32(ev.Pad) != c.gen {
			continue // event for a socket closed earlier in this batch
		}
		w.event(c, ev.Events)
	}
}

func (w *worker) event(c *conn, ev uint32) {
	switch c.state {
	case csConnecting:
		w.connected(c, nanotime())
	case csSetup, csOpen, csClosing:
		if ev&unix.EPOLLOUT != 0 && len(c.wrest) > 0 {
			gen := c.gen
			w.write(c, c.wrest)
			if c.gen != gen || c.state == csDown {
				return // failed (and maybe already reconnecting on a new socket)
			}
		}
		if ev&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0 {
			w.readable(c, ev&(unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0)
		}
	}
}

// readable drains c: edge-triggered epoll reports new data once, so read until the kernel
// has no more. A short read says so without the extra EAGAIN syscall, except that a close
// already queued behind the data raises no new edge: when the event says the peer hung up,
// read on to the end of the stream.
func (w *worker) readable(c *conn, hup bool) {
	gen := c.gen
	for c.gen == gen && c.state != csDown { // stop if handling the data closed or reconnected c
		n, e := sysRead(c.fd, w.buf[maxCarry:])
		t := nanotime()
		switch {
		case e == unix.EAGAIN:
			return
		case e == unix.EINTR:
			continue
		case e != 0:
			w.fail(c, kRead, t)
			return
		case n == 0:
			c.s.eof(w, c, t)
			return
		}
		w.received(c, n, t, hup)
		if n < readChunk && !hup {
			return
		}
	}
}

// received handles the n bytes just read into w.buf[maxCarry:] from c at t: behind what was
// carried over, to the protocol, and then the next requests out.
func (w *worker) received(c *conn, n int, t int64, hup bool) {
	gen := c.gen
	if w.in = w.r.win.in(t); w.in {
		w.counts.bytes += int64(n)
		w.counts.reads++
	}
	start := maxCarry - len(c.carry)
	copy(w.buf[start:], c.carry)
	c.carry = c.carry[:0]
	data := w.buf[start : maxCarry+n]
	if rest := c.s.consume(w, c, data, t); rest > 0 && c.gen == gen && c.state != csDown {
		c.carry = append(c.carry, data[len(data)-rest:]...)
	}
	// The next requests leave at once (closed loop: the next batch as soon as this one is
	// complete), unless the server has already hung up (the read loop finds the close and
	// reconnects, so a server closing between batches loses nothing).
	if c.gen == gen && c.state == csOpen && !hup {
		w.refill(c)
	}
}

// count counts an error of kind k at now, if now is in the window.
func (w *worker) count(k kind, now int64) {
	if w.r.win.in(now) {
		w.counts.errs[k]++
	}
}

// sweep handles what no socket event announces: requests, connects and opening exchanges
// that take too long, retries after failures, and (Count mode) requests re-queued after a
// server close.
func (w *worker) sweep(now int64) {
	w.lastSweep = now
	timeout := int64(w.r.cfg.Timeout)
	live := false
	for i := range w.conns {
		c := &w.conns[i]
		switch c.state {
		case csOpen:
			live = true
			switch {
			case c.pending > 0 && now-c.oldest() > timeout:
				w.fail(c, kTimeout, now)
			case c.pending == 0 && !w.r.open && (!w.r.countMode || w.budget > 0):
				w.send(c)
			}
		case csSetup:
			live = true
			if now-c.since > timeout {
				w.fail(c, kTimeout, now)
			}
		case csConnecting:
			live = true
			if now-c.since > timeout {
				w.closeConn(c)
				w.connectFailed(c, now)
			}
		case csDown:
			if now >= c.since && (!w.r.countMode || w.budget > 0) {
				w.connect(c, now)
			}
		}
	}
	// Count mode must end even when the server is gone or never answers: after a timeout
	// without any answer and no connection left to wait on (or three timeouts, for
	// connections that keep failing in set-up), what was not sent is given up as lost.
	// Requests in flight settle through their own timeouts. An open loop whose next request
	// is not due yet is waiting for its schedule, not for the server.
	if w.r.open && w.r.countMode && w.notDue(now) {
		w.lastProgress = now
	}
	if w.r.countMode && w.budget > 0 && (!live && now-w.lastProgress > timeout || now-w.lastProgress > 3*timeout) {
		w.giveUp()
	}
}

// closeAll ends the run's connections: those whose protocol has a goodbye (a WebSocket close
// frame) send it and get up to wait for the server's answer, on every worker at once so it
// costs one wait, not one per worker; the rest are closed at once. The goodbyes are not part
// of any figure.
func closeAll(ws []*worker, wait time.Duration) {
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() { defer wg.Done(); w.closeAll(wait) }()
	}
	wg.Wait()
}

func (w *worker) closeAll(wait time.Duration) {
	w.nextDue = math.MaxInt64 // nothing is due any more: wait for the goodbyes' answers
	closing := 0
	for i := range w.conns {
		c := &w.conns[i]
		bye := c.s.goodbye()
		if c.state != csOpen || bye == nil {
			w.closeConn(c)
			continue
		}
		c.state = csClosing
		w.enqueue(c, bye)
		if c.state == csClosing {
			closing++
		}
	}
	deadline := nanotime() + int64(wait)
	for closing > 0 && nanotime() < deadline {
		w.poll()
		closing = 0
		for i := range w.conns {
			if w.conns[i].state == csClosing {
				closing++
			}
		}
	}
	for i := range w.conns {
		w.closeConn(&w.conns[i])
	}
}
