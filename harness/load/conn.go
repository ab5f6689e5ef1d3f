package load

type connState uint8

const (
	csDown       connState = iota // no socket; (re)connect once now >= since and there is work
	csConnecting                  // non-blocking connect in progress since `since`
	csOpen                        // connected; a batch is in flight unless pending == 0
)

// conn is one client connection, owned by exactly one worker and touched by no other
// goroutine, so none of its fields needs synchronisation.
type conn struct {
	Sock
	state      connState
	pending    int32 // responses still owed for the batch in flight
	rr         int32 // index in Config.Requests of the next batch's first request
	batchStart int64 // nanotime just before the batch's first write: latency is measured from here
	since      int64 // csConnecting: when it began; csDown: earliest retry
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
	res, reopened := c.Dial(w.epfd, w.r.family(), w.sa)
	if reopened && w.r.win.In(now) {
		w.counts.reconnects++
	}
	switch res {
	case DialDone:
		w.established(c, now)
	case DialPending:
		c.state, c.since = csConnecting, now
	default:
		w.connectFailed(c, now)
	}
}

// connected finishes a non-blocking connect.
func (w *worker) connected(c *conn, now int64) {
	if c.ConnectFailed() {
		w.closeConn(c)
		w.connectFailed(c, now)
		return
	}
	w.established(c, now)
}

// established starts a new connection's first batch.
func (w *worker) established(c *conn, now int64) {
	c.state = csOpen
	w.LastProgress = now
	w.send(c)
}

func (w *worker) connectFailed(c *conn, now int64) {
	w.count(kConnect, now)
	c.state, c.since = csDown, now+int64(ReconnectDelay)
}

// closeConn releases the socket (closing also removes it from epoll) and forgets the batch.
func (w *worker) closeConn(c *conn) {
	c.Close()
	c.state = csDown
	if c.pending > 0 {
		w.batches--
	}
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
	w.batches++
	c.batchStart = Nanotime()
	w.write(c, b)
}

// write pushes b out; what the kernel does not take now waits for EPOLLOUT in c.wrest.
func (w *worker) write(c *conn, b []byte) {
	rest, ok := c.Write(b)
	if !ok {
		w.fail(c, kWrite, Nanotime())
		return
	}
	c.wrest = rest
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
