package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/bindrace/bindrace/harness/scenario"
)

// wsProto drives the ws-echo scenario: each connection upgrades at Config.Path, then keeps
// Pipelining binary messages of Config.Size bytes in flight (written as one batch of masked
// frames), and counts complete echoes whose payload matches what was sent. Frames are
// prebuilt per connection and re-masked in place per batch, and echoes are compared where they
// landed in the read buffer: no allocation per message.
type wsProto struct {
	host, path string
	size       int // payload bytes per message
	frameLen   int // bytes per client frame (header + mask + payload)
	pipelining int
}

func newWSProto(cfg Config) *wsProto {
	return &wsProto{host: cfg.Host, path: cfg.Path, size: cfg.Size, frameLen: headerLen(cfg.Size, true) + cfg.Size,
		pipelining: cfg.Pipelining}
}

// probe is one blocking upgrade: a target that is not there, or is not a WebSocket endpoint,
// is one clear error rather than a run made of connect or handshake errors.
func (p *wsProto) probe(ctx context.Context, cfg Config) error {
	pctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	c, err := dialWS(pctx, cfg.Addr, cfg.Host, cfg.Path)
	if err != nil {
		return err
	}
	c.Close()
	return nil
}

func (p *wsProto) sessions(n int) []session {
	ss := make([]wsSession, n)
	for i := range ss {
		ss[i].p = p
		ss[i].prebuild()
	}
	return sessionsOf(ss)
}

func (p *wsProto) lost(lost, count int64) string {
	return fmt.Sprintf("%d of %d messages were not echoed", lost, count)
}

// wsSession is one connection's WebSocket state.
type wsSession struct {
	p      *wsProto
	seq    uint64
	hs     []byte // the upgrade response so far
	accept string // the Sec-WebSocket-Accept this connection's key calls for
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

// prebuild lays out the session's frames once: headers (FIN, binary, masked, length) and the
// scenario's payload (scenario.WSPayload). Per batch only the first 8 payload bytes (a
// per-connection sequence number, so a stale, repeated or reordered echo cannot pass for the
// right one) and the mask change.
func (s *wsSession) prebuild() {
	size, fl, n := s.p.size, s.p.frameLen, s.p.pipelining
	s.frames = make([]byte, n*fl)
	s.plain = make([]byte, n*size)
	payload := scenario.WSPayload(size)
	for i := range n {
		putHeader(s.frames[i*fl:], opBinary, size, true, 0)
		copy(s.plain[i*size:], payload)
	}
}

// open sends the opening handshake with a fresh key; consume reads the answer. Once per connection: allocating here is
// fine.
func (s *wsSession) open(w *worker, c *conn, _ int64) bool {
	key := newKey()
	s.accept = acceptFor(key)
	w.enqueue(c, upgradeRequest(s.p.host, s.p.path, key))
	return false
}

// batch renders n messages for the ring slots from first on as back-to-back frames, each
// re-masked in place with a fresh key (§5.3 wants a new, unpredictable key per frame;
// math/rand/v2's generator is ChaCha8 seeded by the OS, per thread, without locks).
func (s *wsSession) batch(first, n int) []byte {
	s.fill(first, n)
	fl, p := s.p.frameLen, s.p.pipelining
	if first+n <= p {
		return s.frames[first*fl : (first+n)*fl]
	}
	// The batch wraps around the ring (an open loop adds to messages in flight), and one
	// write wants it contiguous. A copy of its own: the slots it leaves may still be queued.
	return slices.Concat(s.frames[first*fl:], s.frames[:(first+n-p)*fl])
}

// fill prepares the frames of n ring slots from first on: new sequence numbers, new keys,
// re-masked.
func (s *wsSession) fill(first, n int) {
	size, fl := s.p.size, s.p.frameLen
	hl := fl - size
	for k := range n {
		i := (first + k) % s.p.pipelining
		s.seq++
		p := s.plain[i*size : (i+1)*size]
		if size >= 8 {
			binary.LittleEndian.PutUint64(p, s.seq)
		} else {
			for j := range p {
				p[j] = byte(s.seq >> (8 * j))
			}
		}
		fr := s.frames[i*fl : (i+1)*fl]
		key := rand.Uint32()
		binary.LittleEndian.PutUint32(fr[hl-4:], key)
		xorMask(fr[hl:], p, key, 0)
	}
}

func (s *wsSession) consume(w *worker, c *conn, data []byte, t int64) int {
	if c.state == csSetup {
		s.handshake(w, c, data, t)
		return 0
	}
	s.echoes(w, c, data, t)
	return 0
}

// handshake gathers the upgrade response; frames that follow it in the same read are
// consumed at once.
func (s *wsSession) handshake(w *worker, c *conn, data []byte, t int64) {
	s.hs = append(s.hs, data...)
	hl, err := checkHandshake(s.hs, s.accept)
	switch {
	case err != nil:
		w.fail(c, kHandshake, t)
	case hl >= 0:
		w.opened(c, t) // the first requests leave once this read is handled
		if rest := s.hs[hl:]; len(rest) > 0 {
			s.echoes(w, c, rest, t)
		}
	}
}

// echoes parses the frames in data, which arrived at t, checks every echo against what was
// sent and books the complete ones.
func (s *wsSession) echoes(w *worker, c *conn, data []byte, t int64) {
	for off := 0; off < len(data); {
		n, ev, chunk := s.f.next(data[off:])
		off += n
		switch ev {
		case wsMore:
			continue
		case wsProtocol:
			w.fail(c, kProtocol, t)
			return
		}
		end := ev == wsFrameEnd
		op := s.f.op
		if op >= opClose {
			s.ctlN += copy(s.ctl[s.ctlN:], chunk)
			if end {
				payload := s.ctl[:s.ctlN]
				s.ctlN = 0
				if !s.control(w, c, op, payload, t) {
					return
				}
			}
			continue
		}
		if c.state == csClosing {
			continue // echoes of the last batch after the run: not counted, not checked
		}
		if frameStart := s.f.pos == len(chunk); frameStart {
			switch {
			case op != opContinuation && s.inMsg:
				s.f.why = "new data message inside a fragmented one"
			case op == opContinuation && !s.inMsg:
				s.f.why = "continuation frame without a message"
			case op != opContinuation && c.pending == 0:
				s.f.why = "message nobody sent"
			case op != opContinuation:
				s.inMsg, s.msgOp, s.msgOff = true, op, 0
				s.f.why = ""
			default:
				s.f.why = ""
			}
			if s.f.why != "" {
				w.fail(c, kProtocol, t)
				return
			}
		}
		size := s.p.size
		i := int(c.head) // the oldest message in flight: its echo is due first
		want := s.plain[i*size : (i+1)*size]
		if s.msgOp != opBinary || s.msgOff+len(chunk) > size || !bytes.Equal(chunk, want[s.msgOff:s.msgOff+len(chunk)]) {
			w.fail(c, kMismatch, t)
			return
		}
		s.msgOff += len(chunk)
		if end && s.f.fin {
			if s.msgOff != size {
				w.fail(c, kMismatch, t)
				return
			}
			s.inMsg = false
			w.answer(c, t)
		}
	}
}

// control handles a complete control frame; false means c was closed.
func (s *wsSession) control(w *worker, c *conn, op byte, payload []byte, t int64) bool {
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
		_, _ = sysSend(c.fd, appendFrame(nil, opClose, closePayload(code), true, rand.Uint32()))
	}
	if w.idleDone(c) {
		w.closeConn(c) // idle and nothing left to send: not an error
		return false
	}
	w.fail(c, kClosed, t)
	return false
}

// eof handles the server closing the TCP connection.
func (s *wsSession) eof(w *worker, c *conn, t int64) {
	switch {
	case c.state == csClosing:
		w.closeConn(c)
	case c.state == csSetup:
		w.fail(c, kHandshake, t)
	case w.idleDone(c):
		w.closeConn(c)
	default:
		w.fail(c, kClosed, t)
	}
}

// goodbye is a close frame with 1000 (§7.1.2).
func (s *wsSession) goodbye() []byte {
	return appendFrame(nil, opClose, closePayload(closeNormal), true, rand.Uint32())
}

func (s *wsSession) reset() {
	s.hs = s.hs[:0]
	s.f.reset()
	s.inMsg, s.msgOff, s.ctlN = false, 0, 0
}
