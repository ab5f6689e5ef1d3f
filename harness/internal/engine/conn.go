package engine

type connState uint8

const (
	csDown       connState = iota // no socket; (re)connect once now >= since and there is work
	csConnecting                  // non-blocking connect in progress since `since`
	csSetup                       // connected; the protocol's opening exchange (upgrade) since `since`
	csOpen                        // ready; requests are in flight unless pending == 0
	csClosing                     // run over: the protocol's goodbye is sent, waiting for the server's
)

// conn is one client connection, owned by exactly one worker and touched by no other
// goroutine, so none of its fields needs synchronisation.
type conn struct {
	sock
	state   connState
	pending int32 // answers still owed for the requests in flight
	since   int64 // csConnecting, csSetup: when it began; csDown: earliest retry
	// The requests in flight, oldest first, in a ring of Pipelining slots: when each one's
	// latency counts from (its send time, or in an open loop its intended send time), when
	// it was sent, and where the oldest is.
	start []int64
	sent  []int64
	head  int32
	// Open loop: the intended send time of c's next request, and since when c has had room
	// for it (a request due before then waited for the server, not for the generator).
	next  float64
	freed int64
	wrest []byte // what the kernel has not taken yet; written on EPOLLOUT
	carry []byte // bytes the protocol could not use yet (a partial header), <= maxCarry
	s     session
}

// oldest is when the oldest request in flight was sent (pending > 0).
func (c *conn) oldest() int64 { return c.sent[c.head] }

// connect opens c's socket without blocking; completion arrives as EPOLLOUT.
func (w *worker) connect(c *conn, now int64) {
	if w.r.countMode && w.budget == 0 {
		c.state, c.since = csDown, now // nothing to send; stay closed unless work is re-queued
		return
	}
	res, reopened := c.dial(w.epfd, w.r.family, w.sa)
	if reopened && w.r.win.in(now) {
		w.counts.reconnects++
	}
	switch res {
	case dialDone:
		w.established(c, now)
	case dialPending:
		c.state, c.since = csConnecting, now
	default:
		w.connectFailed(c, now)
	}
}

// connected finishes a non-blocking connect.
func (w *worker) connected(c *conn, now int64) {
	if c.connectFailed() {
		w.closeConn(c)
		w.connectFailed(c, now)
		return
	}
	w.established(c, now)
}

// established hands a new connection to the protocol, and starts its first batch if the
// protocol has no opening exchange (otherwise the first read after it does).
func (w *worker) established(c *conn, now int64) {
	c.state, c.since = csSetup, now
	if c.s.open(w, c, now) {
		w.lastProgress = now
		w.opened(c, now)
		w.refill(c)
	}
}

// opened marks c ready for requests at now: its opening exchange, if any, is done.
func (w *worker) opened(c *conn, now int64) {
	c.state, c.freed = csOpen, now
}

// refill sends what c may send now that it has room: in a closed loop the next batch once the
// last one is complete, in an open loop whatever is due.
func (w *worker) refill(c *conn) {
	switch {
	case w.r.open:
		if c.pending < int32(w.r.cfg.Pipelining) {
			w.refillOpen(c)
		}
	case c.pending == 0:
		w.send(c)
	}
}

func (w *worker) connectFailed(c *conn, now int64) {
	w.count(kConnect, now)
	c.state, c.since = csDown, now+int64(reconnectDelay)
}

// closeConn releases the socket (closing also removes it from epoll) and forgets what was in
// flight.
func (w *worker) closeConn(c *conn) {
	c.close()
	c.state = csDown
	if c.pending > 0 {
		w.batches--
	}
	c.pending, c.head = 0, 0
	c.wrest = nil
	c.carry = c.carry[:0]
	c.s.reset()
}

// send writes c's next batch: Pipelining requests (fewer at the end of Count mode) in one
// write, as wrk's pipeline.lua does, each in flight from now.
func (w *worker) send(c *conn) {
	n := w.take(w.r.cfg.Pipelining)
	if n == 0 {
		return
	}
	b := c.s.batch(0, n)
	now := nanotime()
	// pending is 0 here (a closed loop sends when the last batch is complete), so the ring
	// starts at its first slot.
	c.head = 0
	for i := range n {
		c.start[i], c.sent[i] = now, now
	}
	c.pending = int32(n)
	w.batches++
	w.enqueue(c, b)
}

// answer books the answer to c's oldest request in flight, complete at t.
func (w *worker) answer(c *conn, t int64) {
	start := c.start[c.head]
	if c.head++; int(c.head) == len(c.start) {
		c.head = 0
	}
	if int(c.pending) == len(c.start) {
		c.freed = t // it had no room until now
	}
	if c.pending--; c.pending == 0 {
		w.batches--
	}
	w.tally.answer(t, start, w.in)
}

// enqueue writes b after anything still waiting, so writes never interleave. The queued case
// (a pong behind a half-written batch) is rare enough to copy.
func (w *worker) enqueue(c *conn, b []byte) {
	if len(c.wrest) > 0 {
		c.wrest = append(c.wrest[:len(c.wrest):len(c.wrest)], b...)
		return
	}
	w.write(c, b)
}

// write pushes b out; what the kernel does not take now waits for EPOLLOUT in c.wrest.
func (w *worker) write(c *conn, b []byte) {
	rest, ok := c.write(b)
	if !ok {
		w.fail(c, kWrite, nanotime())
		return
	}
	c.wrest = rest
}

// fail counts an error, settles the requests in flight as lost, and reconnects (after a pause
// when the failure was in setting the connection up, or not at all once the run is over).
func (w *worker) fail(c *conn, k kind, now int64) {
	w.count(k, now)
	w.lose(int64(c.pending))
	setup := c.state == csSetup
	w.closeConn(c)
	switch {
	case w.r.win.stopped():
	case setup:
		c.since = now + int64(reconnectDelay)
	default:
		w.connect(c, now)
	}
}

// closedByServer handles a close the server announced (HTTP's Connection: close, HTTP/1.0, or
// a close-delimited body): not an error. The later requests in flight will never be
// answered; in Count mode they are sent again on the new connection so the total still
// comes out exact.
func (w *worker) closedByServer(c *conn, now int64) {
	if w.r.countMode {
		w.budget += int64(c.pending)
	}
	w.closeConn(c)
	w.connect(c, now)
}

// idleDone reports that c has nothing in flight and Count mode has nothing left to send: a
// close by the server then loses nothing.
func (w *worker) idleDone(c *conn) bool {
	return c.pending == 0 && w.r.countMode && w.budget == 0
}
