package wsload

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
	"golang.org/x/sys/unix"
)

// A worker is one goroutine running its own epoll loop over its share of the connections, as
// in harness/load: no goroutine per connection, no channel or lock per message, and all
// counters private until the run ends.

const (
	// readChunk is how much one read asks for: 100 connections' worth of 10 echoes is a few
	// KiB, so one read nearly always drains a socket.
	readChunk = 64 << 10
)

type connState uint8

const (
	csDown       connState = iota // no socket; (re)connect once now >= since and there is work
	csConnecting                  // non-blocking connect in progress since `since`
	csHandshake                   // upgrade request sent at `since`, reading the 101
	csOpen                        // upgraded; a batch is in flight unless pending == 0
	csClosing                     // run over: our close frame is sent, waiting for the server's
)

// conn is one client connection, owned by exactly one worker and touched by no other
// goroutine while the worker runs, so none of its fields needs synchronisation.
type conn struct {
	load.Sock
	state      connState
	pending    int32 // echoes still owed for the batch in flight
	sent       int32 // messages in the batch in flight
	batchStart int64 // nanotime just before the batch's write: latency is measured from here
	since      int64 // csConnecting/csHandshake: when it began; csDown: earliest retry
	seq        uint64
	wrest      []byte // what the kernel has not taken yet; written on EPOLLOUT
	hs         []byte // the upgrade response so far
	accept     string // the Sec-WebSocket-Accept this connection's key calls for
	// frames holds Pipelining ready-made masked frames back to back; each batch rewrites only
	// their mask keys and masked payloads, in place. plain holds the same payloads unmasked:
	// exactly what the echoes must be.
	frames []byte
	plain  []byte
	f      frameParser
	// The data message being received, possibly fragmented over frames and reads.
	inMsg  bool
	msgOp  byte
	msgOff int
	ctl    [maxControlLen]byte // a control frame's payload, gathered across reads
	ctlN   int
}

type worker struct {
	r          *runner
	sa         unix.Sockaddr // this worker's own copy: x/sys encodes into it on every Connect
	epfd       int
	conns      []conn
	evs        []unix.EpollEvent
	buf        []byte
	counts     counts // measured window only
	size       int    // payload bytes per message
	frameLen   int    // bytes per client frame (header + mask + payload)
	lastSweep  int64
	load.Tally // echoes and their latencies; Count mode's messages
}

func newWorker(r *runner, nconns int, share int64) (*worker, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	size, p := r.cfg.Size, r.cfg.Pipelining
	w := &worker{
		r:        r,
		sa:       r.sockaddr(),
		epfd:     epfd,
		conns:    make([]conn, nconns),
		evs:      make([]unix.EpollEvent, load.MaxEvents),
		buf:      make([]byte, readChunk),
		size:     size,
		frameLen: headerLen(size, true) + size,
		Tally:    load.NewTally(r.countMode, share),
	}
	for i := range w.conns {
		c := &w.conns[i]
		c.Init(i)
		w.prebuild(c, p)
	}
	return w, nil
}

// prebuild lays out c's P frames once: headers (FIN, binary, masked, length) and the
// scenario's payload (scenario.WSPayload). Per batch only the first 8 payload bytes (a
// per-connection sequence number, so a stale, repeated or reordered echo cannot pass for the
// right one) and the mask change.
func (w *worker) prebuild(c *conn, p int) {
	size, fl := w.size, w.frameLen
	c.frames = make([]byte, p*fl)
	c.plain = make([]byte, p*size)
	payload := scenario.WSPayload(size)
	for i := range p {
		putHeader(c.frames[i*fl:], opBinary, size, true, 0)
		copy(c.plain[i*size:], payload)
	}
}

// Run is the worker's event loop (see load.Worker).
func (w *worker) Run() {
	now := load.Nanotime()
	w.LastProgress, w.lastSweep = now, now
	for i := range w.conns {
		w.connect(&w.conns[i], now)
	}
	for !w.r.win.Stopped() && !w.Settled() {
		w.poll()
		w.Publish()
		if now = load.Nanotime(); now-w.lastSweep >= int64(load.SweepEvery) {
			w.sweep(now)
		}
	}
	w.Publish()
}

// poll handles one round of socket events.
func (w *worker) poll() {
	for i := range load.Poll(w.epfd, w.evs) {
		ev := &w.evs[i]
		c := &w.conns[ev.Fd]
		if uint32(ev.Pad) != c.Gen {
			continue // event for a socket closed earlier in this batch
		}
		w.event(c, ev.Events)
	}
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
		w.connected(c, load.Nanotime())
	case csHandshake, csOpen, csClosing:
		if ev&unix.EPOLLOUT != 0 && len(c.wrest) > 0 {
			gen := c.Gen
			w.write(c, c.wrest)
			if c.Gen != gen || c.state == csDown {
				return // failed (and maybe already reconnecting on a new socket)
			}
		}
		if ev&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0 {
			w.readable(c, ev&(unix.EPOLLERR|unix.EPOLLHUP|unix.EPOLLRDHUP) != 0)
		}
	}
}

// readable drains c: edge-triggered epoll reports new data once, so read until the kernel
// has no more (a short read says so without the extra EAGAIN syscall). When the event also
// reported the peer's close (hup), the FIN may sit behind the data with no further edge to
// come, so then it reads on until EOF or EAGAIN.
func (w *worker) readable(c *conn, hup bool) {
	gen := c.Gen
	for {
		n, e := load.SysRead(c.FD, w.buf)
		t := load.Nanotime()
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
		switch c.state {
		case csHandshake:
			w.handshake(c, w.buf[:n], t)
		case csOpen, csClosing:
			w.consume(c, w.buf[:n], t)
		}
		if c.state == csOpen && c.pending == 0 {
			w.send(c) // closed loop: the next batch leaves as soon as this one is echoed
		}
		if c.Gen != gen || c.state == csDown || (n < len(w.buf) && !hup) {
			return // short read: drained; or the socket failed and may be reconnecting
		}
	}
}

// handshake gathers the upgrade response; frames that follow it in the same read are
// consumed at once.
func (w *worker) handshake(c *conn, data []byte, t int64) {
	c.hs = append(c.hs, data...)
	hl, err := checkHandshake(c.hs, c.accept)
	switch {
	case err != nil:
		w.fail(c, kHandshake, t)
	case hl >= 0:
		c.state = csOpen
		if rest := c.hs[hl:]; len(rest) > 0 {
			w.consume(c, rest, t)
		}
	}
}

// consume parses the frames in data, which arrived at t, checks every echo against what was
// sent and books the complete ones.
func (w *worker) consume(c *conn, data []byte, t int64) {
	in := w.r.win.In(t)
	if in {
		w.counts.bytes += int64(len(data))
	}
	var done int64
	for off := 0; off < len(data); {
		n, ev, chunk := c.f.next(data[off:])
		off += n
		switch ev {
		case evMore:
			continue
		case evProtocol:
			w.Record(done, c.batchStart, t, in)
			w.fail(c, kProtocol, t)
			return
		}
		end := ev == evFrameEnd
		op := c.f.op
		if op >= opClose {
			c.ctlN += copy(c.ctl[c.ctlN:], chunk)
			if end {
				payload := c.ctl[:c.ctlN]
				c.ctlN = 0
				if !w.control(c, op, payload, t) {
					w.Record(done, c.batchStart, t, in)
					return
				}
			}
			continue
		}
		if c.state == csClosing {
			continue // echoes of the last batch after the run: not counted, not checked
		}
		if frameStart := c.f.pos == len(chunk); frameStart {
			switch {
			case op != opContinuation && c.inMsg:
				c.f.why = "new data message inside a fragmented one"
			case op == opContinuation && !c.inMsg:
				c.f.why = "continuation frame without a message"
			case op != opContinuation && c.pending == 0:
				c.f.why = "message nobody sent"
			case op != opContinuation:
				c.inMsg, c.msgOp, c.msgOff = true, op, 0
				c.f.why = ""
			default:
				c.f.why = ""
			}
			if c.f.why != "" {
				w.Record(done, c.batchStart, t, in)
				w.fail(c, kProtocol, t)
				return
			}
		}
		size := w.size
		i := int(c.sent - c.pending)
		want := c.plain[i*size : (i+1)*size]
		if c.msgOp != opBinary || c.msgOff+len(chunk) > size || !bytes.Equal(chunk, want[c.msgOff:c.msgOff+len(chunk)]) {
			w.Record(done, c.batchStart, t, in)
			w.fail(c, kMismatch, t)
			return
		}
		c.msgOff += len(chunk)
		if end && c.f.fin {
			if c.msgOff != size {
				w.Record(done, c.batchStart, t, in)
				w.fail(c, kMismatch, t)
				return
			}
			c.inMsg = false
			c.pending--
			done++
		}
	}
	w.Record(done, c.batchStart, t, in)
}

// control handles a complete control frame; false means c was closed.
func (w *worker) control(c *conn, op byte, payload []byte, t int64) bool {
	switch op {
	case opPing: // §5.5.2: answer with a pong carrying the same data
		w.enqueue(c, appendFrame(nil, opPong, payload, true, rand.Uint32()))
		return c.state != csDown
	case opPong: // unsolicited pongs are allowed and mean nothing
		return true
	}
	// Close.
	if len(payload) == 1 {
		w.fail(c, kProtocol, t)
		return false
	}
	if c.state == csClosing { // the answer to our close: the handshake is complete
		w.closeConn(c)
		return false
	}
	// The server closes mid-run. Echo its status as §5.5.1 asks, best effort, then drop.
	code := uint16(closeNormal)
	if len(payload) >= 2 {
		code = binary.BigEndian.Uint16(payload)
	}
	if len(c.wrest) == 0 {
		_, _ = load.SysSend(c.FD, appendFrame(nil, opClose, closePayload(code), true, rand.Uint32()))
	}
	if c.pending == 0 && w.r.countMode && w.Budget == 0 {
		w.closeConn(c) // idle and nothing left to send: not an error
		return false
	}
	w.fail(c, kClosed, t)
	return false
}

// eof handles the server closing the TCP connection.
func (w *worker) eof(c *conn, t int64) {
	switch {
	case c.state == csClosing:
		w.closeConn(c)
	case c.state == csHandshake:
		w.fail(c, kHandshake, t)
	case c.pending == 0 && w.r.countMode && w.Budget == 0:
		w.closeConn(c)
	default:
		w.fail(c, kClosed, t)
	}
}

func (w *worker) count(k kind, t int64) {
	if w.r.win.In(t) {
		w.counts.errs[k]++
	}
}

// connect opens c's socket without blocking; completion arrives as EPOLLOUT.
func (w *worker) connect(c *conn, now int64) {
	if w.r.countMode && w.Budget == 0 {
		c.state, c.since = csDown, now // nothing to send; stay closed
		return
	}
	res, reopened := c.Dial(w.epfd, w.r.family, w.sa)
	if reopened && w.r.win.In(now) {
		w.counts.reconnects++
	}
	switch res {
	case load.DialDone:
		w.upgrade(c, now)
	case load.DialPending:
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
	w.upgrade(c, now)
}

// upgrade sends the opening handshake with a fresh key. Once per connection: allocating here
// is fine.
func (w *worker) upgrade(c *conn, now int64) {
	key := newKey()
	c.accept = acceptFor(key)
	c.state, c.since = csHandshake, now
	w.enqueue(c, upgradeRequest(w.r.cfg.Host, w.r.cfg.Path, key))
}

func (w *worker) connectFailed(c *conn, now int64) {
	w.count(kConnect, now)
	c.state, c.since = csDown, now+int64(load.ReconnectDelay)
}

// closeConn releases the socket (closing also removes it from epoll) and forgets the batch.
func (w *worker) closeConn(c *conn) {
	c.Close()
	c.state = csDown
	c.pending, c.sent = 0, 0
	c.wrest = nil
	c.hs = c.hs[:0]
	c.f.reset()
	c.inMsg, c.msgOff, c.ctlN = false, 0, 0
}

// send writes c's next batch: Pipelining messages (fewer at the end of Count mode) as one
// write of back-to-back frames, each re-masked in place with a fresh key (§5.3 wants a new,
// unpredictable key per frame; math/rand/v2's generator is ChaCha8 seeded by the OS, per
// thread, without locks), and starts the batch's latency clock.
func (w *worker) send(c *conn) {
	n := w.Take(w.r.cfg.Pipelining)
	if n == 0 {
		return
	}
	w.fill(c, n)
	c.sent, c.pending = int32(n), int32(n)
	c.batchStart = load.Nanotime()
	w.enqueue(c, c.frames[:n*w.frameLen])
}

// fill prepares c's first n frames for a batch: new sequence numbers, new keys, re-masked.
func (w *worker) fill(c *conn, n int) {
	size, fl := w.size, w.frameLen
	hl := fl - size
	for i := range n {
		c.seq++
		p := c.plain[i*size : (i+1)*size]
		if size >= 8 {
			binary.LittleEndian.PutUint64(p, c.seq)
		} else {
			for j := range p {
				p[j] = byte(c.seq >> (8 * j))
			}
		}
		fr := c.frames[i*fl : (i+1)*fl]
		key := rand.Uint32()
		binary.LittleEndian.PutUint32(fr[hl-4:], key)
		xorMask(fr[hl:], p, key, 0)
	}
}

// enqueue writes b after anything still waiting, so frames never interleave. The queued case
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
	rest, ok := c.Write(b)
	if !ok {
		w.fail(c, kWrite, load.Nanotime())
		return
	}
	c.wrest = rest
}

// fail counts an error, settles the batch's unanswered messages as lost, and reconnects
// (after a pause when the failure was in setting the connection up, or not at all once the
// run is over).
func (w *worker) fail(c *conn, k kind, now int64) {
	w.count(k, now)
	w.Lose(int64(c.pending))
	setup := c.state == csHandshake
	w.closeConn(c)
	switch {
	case w.r.win.Stopped():
	case setup:
		c.since = now + int64(load.ReconnectDelay)
	default:
		w.connect(c, now)
	}
}

// sweep handles what no socket event announces: batches, connects and upgrades that take too
// long, retries after failures, and Count mode's end when the server is gone.
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
			case c.pending == 0 && (!w.r.countMode || w.Budget > 0):
				w.send(c)
			}
		case csHandshake:
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
			if now >= c.since && (!w.r.countMode || w.Budget > 0) {
				w.connect(c, now)
			}
		}
	}
	// Count mode must end even when the server is gone or never echoes: after a timeout
	// without any echo and no connection left to wait on (or three timeouts, for connections
	// that keep failing in set-up), what was not sent is given up as lost. Batches in flight
	// settle through their own timeouts.
	if w.r.countMode && w.Budget > 0 && (!live && now-w.LastProgress > timeout || now-w.LastProgress > 3*timeout) {
		w.GiveUp()
	}
}

// closeAll ends the run's connections cleanly (§7.1.2): a close frame with 1000 on every
// upgraded one, then up to wait for the server's close frame (or its TCP close), discarding
// late echoes. Whatever has not answered by then is closed regardless.
func (w *worker) closeAll(wait time.Duration) {
	closing := 0
	for i := range w.conns {
		c := &w.conns[i]
		if c.state != csOpen {
			w.closeConn(c)
			continue
		}
		c.state = csClosing
		w.enqueue(c, appendFrame(nil, opClose, closePayload(closeNormal), true, rand.Uint32()))
		if c.state == csClosing {
			closing++
		}
	}
	deadline := load.Nanotime() + int64(wait)
	for closing > 0 && load.Nanotime() < deadline {
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
