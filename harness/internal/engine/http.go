package engine

import (
	"context"
	"fmt"
	"net"
)

// httpProto sends HTTP/1.1 requests and frames the responses (framing.go).
type httpProto struct {
	requests int
	// One ready-made batch per round-robin starting point: a batch is a single prebuilt
	// slice, so sending one is one syscall and no copying.
	batches [][]byte // batches[s]: Pipelining requests starting with Requests[s], back to back
	ends    [][]int  // ends[s][k]: where request k of batches[s] ends

	build      BuildFunc // Config.Build: requests rendered per request instead
	pipelining int
	conns      connNumbers
}

func newHTTPProto(cfg Config) *httpProto {
	n := len(cfg.Requests)
	p := &httpProto{requests: n, batches: make([][]byte, n), ends: make([][]int, n),
		build: cfg.Build, pipelining: cfg.Pipelining}
	for s := range n {
		for k := range cfg.Pipelining {
			p.batches[s] = append(p.batches[s], cfg.Requests[(s+k)%n]...)
			p.ends[s] = append(p.ends[s], len(p.batches[s]))
		}
	}
	return p
}

// probe is one plain dial.
func (p *httpProto) probe(ctx context.Context, cfg Config) error {
	d := net.Dialer{Timeout: cfg.Timeout}
	c, err := d.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("%w to %s: %v", errConnect, cfg.Addr, err)
	}
	c.Close()
	return nil
}

func (p *httpProto) sessions(n int) []session {
	seen := newHeadCache() // one per worker: all its connections talk to the same server
	ss := make([]httpSession, n)
	for i := range ss {
		ss[i] = httpSession{p: p, f: framer{seen: seen}}
		if p.build != nil {
			ss[i].b = newBuilder(p.build, p.pipelining, p.conns.take())
		}
	}
	return sessionsOf(ss)
}

func (p *httpProto) lost(lost, count int64) string {
	return fmt.Sprintf("%d of %d requests got no response", lost, count)
}

type httpSession struct {
	p  *httpProto
	rr int // index in Config.Requests of the next batch's first request
	f  framer
	b  *builder // Config.Build's loads
}

func (s *httpSession) open(*worker, *conn, int64) bool { return true }

func (s *httpSession) batch(_, n int) []byte {
	if s.b != nil {
		return s.b.batch(n)
	}
	p := s.p
	b := p.batches[s.rr]
	if n < len(p.ends[s.rr]) {
		b = b[:p.ends[s.rr][n-1]]
	}
	s.rr = (s.rr + n) % p.requests
	return b
}

// consume frames the responses in data, which arrived at t.
func (s *httpSession) consume(w *worker, c *conn, data []byte, t int64) int {
	for off := 0; off < len(data); {
		if c.pending == 0 {
			w.fail(c, kMalformed, t) // bytes nobody asked for
			return 0
		}
		m, ev := s.f.next(data[off:])
		off += m
		switch ev {
		case evMore:
			return len(data) - off
		case evResponse:
			w.answer(c, t)
			if w.in {
				w.countStatus(s.f.status)
			}
			if s.f.close {
				w.closedByServer(c, t)
				return 0
			}
		case evMalformed:
			w.fail(c, kMalformed, t)
			return 0
		}
	}
	return 0
}

// eof handles the server closing c.
func (s *httpSession) eof(w *worker, c *conn, t int64) {
	switch s.f.eof(len(c.carry)) {
	case evResponse: // a close-delimited body ended
		w.in = w.r.win.in(t)
		w.answer(c, t)
		if w.in {
			w.countStatus(s.f.status)
		}
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

func (s *httpSession) goodbye() []byte { return nil }

func (s *httpSession) reset() { s.f.reset() }

func (w *worker) countStatus(st int) {
	if st < 200 || st >= 300 {
		w.counts.status[st]++
	}
}
