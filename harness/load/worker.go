package load

import "golang.org/x/sys/unix"

// A worker is one goroutine running its own epoll loop over its share of the connections,
// the way each wrk thread runs its own ae loop: no goroutine per connection, no channel or lock
// per response, and all counters private until the run ends.

const (
	// readChunk is how much one read asks for. Ten pipelined responses are well under a KiB;
	// the rest serves large bodies in few syscalls.
	readChunk = 64 << 10
)

type worker struct {
	r     *runner
	sa    unix.Sockaddr // the worker's own copy: unix.Connect writes into it
	epfd  int
	conns []conn
	evs   []unix.EpollEvent
	// buf holds carried-over bytes just below maxHeaderBytes and each read just above it, so a
	// partial header and its continuation are contiguous without moving the new data.
	buf       []byte
	counts    counts // measured window only
	batches   int    // batches in flight on this worker's connections
	lastSweep int64
	Tally     // responses and their latencies; Count mode's requests
}

func newWorker(r *runner, nconns int, share int64) (*worker, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	w := &worker{
		r:     r,
		sa:    r.sockaddr(),
		epfd:  epfd,
		conns: make([]conn, nconns),
		evs:   make([]unix.EpollEvent, MaxEvents),
		buf:   make([]byte, maxHeaderBytes+readChunk),
		Tally: NewTally(r.countMode, share),
	}
	seen := newHeadCache() // one per worker: all its connections talk to the same server
	for i := range w.conns {
		w.conns[i].Init(i)
		w.conns[i].f.seen = seen
	}
	return w, nil
}

// Run is the worker's event loop (see Worker).
func (w *worker) Run() {
	now := Nanotime()
	w.LastProgress, w.lastSweep = now, now
	for i := range w.conns {
		w.connect(&w.conns[i], now)
	}
	for !w.r.win.Stopped() && !w.Settled() {
		evs := Poll(w.epfd, w.evs)
		if len(evs) > 0 && w.r.win.In(Nanotime()) {
			w.counts.wakeups++
			w.counts.inFlight += int64(w.batches)
		}
		for i := range evs {
			ev := &w.evs[i]
			c := &w.conns[ev.Fd]
			if uint32(ev.Pad) != c.Gen {
				continue // event for a socket closed earlier in this batch
			}
			w.event(c, ev.Events)
		}
		w.Publish()
		if now = Nanotime(); now-w.lastSweep >= int64(SweepEvery) {
			w.sweep(now)
		}
	}
	w.Publish()
}

// Shutdown closes the worker's connections and its epoll instance.
func (w *worker) Shutdown() {
	for i := range w.conns {
		w.closeConn(&w.conns[i])
	}
	unix.Close(w.epfd)
}

func (w *worker) event(c *conn, ev uint32) {
	switch c.state {
	case csConnecting:
		w.connected(c, Nanotime())
	case csOpen:
		if ev&unix.EPOLLOUT != 0 && len(c.wrest) > 0 {
			w.write(c, c.wrest)
			if c.state != csOpen {
				return
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
	gen := c.Gen
	for c.state == csOpen && c.Gen == gen { // stop if the batch's handling reconnected c
		n, e := SysRead(c.FD, w.buf[maxHeaderBytes:])
		t := Nanotime()
		switch {
		case e == unix.EAGAIN:
			return
		case e == unix.EINTR:
			continue
		case e != 0:
			w.fail(c, kRead, t)
			return
		case n == 0:
			w.eof(c, t)
			return
		}
		start := maxHeaderBytes - len(c.carry)
		copy(w.buf[start:], c.carry)
		c.carry = c.carry[:0]
		w.consume(c, w.buf[start:maxHeaderBytes+n], n, t, hup)
		if n < readChunk && !hup {
			return
		}
	}
}

// consume frames the responses in data, which arrived at t. hup says the server has already
// hung up: then a completed batch is not followed by another on this connection; the read
// loop finds the close and reconnects, so a server closing between batches loses nothing.
func (w *worker) consume(c *conn, data []byte, n int, t int64, hup bool) {
	in := w.r.win.In(t)
	if in {
		w.counts.bytes += int64(n)
		w.counts.reads++
	}
	var done int64
	for off := 0; off < len(data); {
		if c.pending == 0 {
			w.Record(done, c.batchStart, t, in)
			w.fail(c, kMalformed, t) // bytes nobody asked for
			return
		}
		m, ev := c.f.next(data[off:])
		off += m
		switch ev {
		case evMore:
			if off < len(data) {
				c.carry = append(c.carry, data[off:]...)
			}
			off = len(data)
		case evResponse:
			c.pending--
			done++
			if c.pending == 0 {
				w.batches--
			}
			if in {
				w.countStatus(c.f.status)
			}
			if c.f.close {
				w.Record(done, c.batchStart, t, in)
				w.closedByServer(c, t)
				return
			}
		case evMalformed:
			w.Record(done, c.batchStart, t, in)
			w.fail(c, kMalformed, t)
			return
		}
	}
	w.Record(done, c.batchStart, t, in)
	if c.pending == 0 && !hup {
		w.send(c) // closed loop: the next batch leaves as soon as this one is complete
	}
}

// eof handles the server closing c.
func (w *worker) eof(c *conn, t int64) {
	switch c.f.eof(len(c.carry)) {
	case evResponse: // a close-delimited body ended
		c.pending--
		if c.pending == 0 {
			w.batches--
		}
		in := w.r.win.In(t)
		if in {
			w.countStatus(c.f.status)
		}
		w.Record(1, c.batchStart, t, in)
		w.closedByServer(c, t)
	case evMore:
		if c.pending == 0 { // closed between batches: not an error, nothing lost
			w.closeConn(c)
			w.connect(c, t)
			return
		}
		fallthrough
	default:
		w.fail(c, kClosed, t)
	}
}

func (w *worker) countStatus(st int) {
	if st < 200 || st >= 300 {
		w.counts.status[st]++
	}
}

func (w *worker) count(k kind, t int64) {
	if w.r.win.In(t) {
		w.counts.errs[k]++
	}
}

// sweep handles what no socket event announces: batches and connects that take too long,
// retries after failed connects, and (Count mode) requests re-queued after a server close.
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
			case c.pending > 0 && now-c.batchStart > timeout:
				w.fail(c, kTimeout, now)
			case c.pending == 0 && w.Budget > 0:
				w.send(c)
			}
		case csConnecting:
			live = true
			if now-c.since > timeout {
				w.closeConn(c)
				w.connectFailed(c, now)
			}
		case csDown:
			if now >= c.since && (!w.r.countMode || w.Budget > 0) {
				w.connect(c, now)
			}
		}
	}
	// Count mode must end even when the server is gone: after a timeout without any progress
	// and no connection left to wait on, what was not sent is given up as lost.
	if w.r.countMode && !live && w.Budget > 0 && now-w.LastProgress > timeout {
		w.GiveUp()
	}
}
