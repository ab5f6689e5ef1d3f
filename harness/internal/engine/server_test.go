package engine

import (
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/loopback"
)

// rawServer is a minimal pipelined HTTP/1.1 responder for tests: it counts requests by their
// blank line (bodiless GETs only) and answers everything one read delivered in one write,
// the way the servers under test cork their responses.
type rawServer struct {
	ln        net.Listener
	requests  atomic.Int64 // requests read
	responses atomic.Int64 // responses written
	conns     atomic.Int64 // connections accepted
	// respond returns what to write for n requests just read on a connection that has
	// answered done before, and whether to close afterwards.
	respond func(n int, done int64) (out string, closeAfter bool)
	wg      sync.WaitGroup
}

func newRawServer(t testing.TB, respond func(n int, done int64) (string, bool)) *rawServer {
	t.Helper()
	ln, _ := loopback.Listen(t)
	s := &rawServer{ln: ln, respond: respond}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *rawServer) addr() string { return s.ln.Addr().String() }

func (s *rawServer) serve() {
	defer s.wg.Done()
	var conns sync.WaitGroup
	defer conns.Wait()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.conns.Add(1)
		conns.Add(1)
		go func() { defer conns.Done(); s.handle(c) }()
	}
}

func (s *rawServer) handle(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 64<<10)
	state := 0 // progress through "\r\n\r\n"
	var done int64
	for {
		n, err := c.Read(buf)
		if err != nil {
			return
		}
		reqs := 0
		for _, ch := range buf[:n] {
			switch {
			case ch == '\r' && (state == 0 || state == 2):
				state++
			case ch == '\n' && (state == 1 || state == 3):
				if state++; state == 4 {
					reqs++
					state = 0
				}
			case ch == '\r':
				state = 1
			default:
				state = 0
			}
		}
		if reqs == 0 {
			continue
		}
		s.requests.Add(int64(reqs))
		out, closeAfter := s.respond(reqs, done)
		done += int64(reqs)
		if out != "" {
			if _, err := c.Write([]byte(out)); err != nil {
				return
			}
			s.responses.Add(int64(strings.Count(out, "HTTP/1.1 ")))
		}
		if closeAfter {
			return
		}
	}
}

const pingResp = "HTTP/1.1 200 OK\r\nServer: raw\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi"

func answer(resp string) func(int, int64) (string, bool) {
	return func(n int, _ int64) (string, bool) { return strings.Repeat(resp, n), false }
}
