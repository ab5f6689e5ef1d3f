package measure

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
)

// The paced client is the driver of every count that must repeat (cachegrind mode, system
// calls per response): one connection, a batch of pipe requests written at once, every answer
// of the batch read, then a pause of gap before the next batch. The gap makes every batch meet
// an idle server (its read finds nothing and it parks in epoll), so each batch costs the server
// the same work; without it whether the next batch is already there when the server reads again
// is a race between the client and the server, and a per-response figure wanders by a few
// percent run to run (measured under valgrind: ±1.5% at N=20000, pipelining 10).

// pacedConn is one connection of the paced client.
type pacedConn struct {
	conn    *heldConn
	ex      exchange
	pipe    int
	gap     time.Duration
	timeout time.Duration
}

// dialPaced connects to addr and opens the exchange (a WebSocket upgrade, say).
func dialPaced(ctx context.Context, addr string, ex exchange, pipe int, gap, timeout time.Duration) (*pacedConn, error) {
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	hc := &heldConn{Conn: c}
	hc.SetDeadline(time.Now().Add(timeout))
	if err := ex.open(ctx, hc); err != nil {
		c.Close()
		return nil, err
	}
	return &pacedConn{conn: hc, ex: ex, pipe: pipe, gap: gap, timeout: timeout}, nil
}

// run sends exactly count requests in batches and reads every answer; it returns how many were
// answered and how long that took.
func (p *pacedConn) run(ctx context.Context, count int64) (int64, time.Duration, error) {
	start := time.Now()
	var done int64
	for done < count {
		if err := ctx.Err(); err != nil {
			return done, time.Since(start), err
		}
		k := min(int64(p.pipe), count-done)
		p.conn.SetDeadline(time.Now().Add(p.timeout))
		if err := p.batch(int(k)); err != nil {
			return done, time.Since(start), fmt.Errorf("write: %w", err)
		}
		for range k {
			if err := p.ex.read(); err != nil {
				return done, time.Since(start), fmt.Errorf("response %d: %w", done+1, err)
			}
			done++
		}
		if p.gap > 0 && done < count {
			time.Sleep(p.gap)
		}
	}
	return done, time.Since(start), nil
}

// batch writes k requests in one write, as a pipelining client sends them.
func (p *pacedConn) batch(k int) error {
	p.conn.hold = true
	for range k {
		if err := p.ex.send(); err != nil {
			p.conn.hold = false
			return err
		}
	}
	return p.conn.flush()
}

func (p *pacedConn) close() { p.conn.Close() }

// pacedRun dials addr, sends exactly count requests paced as above, and closes the connection.
func pacedRun(ctx context.Context, addr string, ex exchange, count int64, pipe int, gap, timeout time.Duration) (int64, time.Duration, error) {
	p, err := dialPaced(ctx, addr, ex, pipe, gap, timeout)
	if err != nil {
		return 0, 0, err
	}
	defer p.close()
	return p.run(ctx, count)
}

// heldConn holds what is written while hold is set, until flush writes it at once, and counts
// the bytes that cross it each way.
type heldConn struct {
	net.Conn
	hold            bool
	held            []byte
	written, readIn int64
}

func (h *heldConn) Write(b []byte) (int, error) {
	if h.hold {
		h.held = append(h.held, b...)
		return len(b), nil
	}
	n, err := h.Conn.Write(b)
	h.written += int64(n)
	return n, err
}

func (h *heldConn) Read(b []byte) (int, error) {
	n, err := h.Conn.Read(b)
	h.readIn += int64(n)
	return n, err
}

// flush writes what was held and stops holding.
func (h *heldConn) flush() error {
	h.hold = false
	b := h.held
	h.held = h.held[:0]
	_, err := h.Write(b)
	return err
}

// exchange is what a paced connection speaks.
type exchange interface {
	open(ctx context.Context, c net.Conn) error // anything before the first request (an upgrade)
	send() error                                // write one request on the connection open gave
	read() error                                // consume one answer, or say what is wrong with it
}

// exchangeFor is the exchange of sc's scenario against addr; build, when not nil, renders
// every request (a database scenario's, each with the next id of its key sequence).
func exchangeFor(sc scenario.Scenario, addr string, build load.BuildFunc) exchange {
	if sc.WebSocket() {
		return &wsExchange{host: addr, path: sc.Path, payload: sc.Body}
	}
	return &httpExchange{request: sc.Request(addr), build: build}
}

// httpExchange sends one HTTP/1.1 request and reads its response.
type httpExchange struct {
	request []byte
	build   load.BuildFunc // nil: request every time
	seq     uint64         // the next request's number, for build
	c       net.Conn
	br      *bufio.Reader
}

func (h *httpExchange) open(_ context.Context, c net.Conn) error {
	h.c, h.br = c, bufio.NewReaderSize(c, 64<<10)
	return nil
}

func (h *httpExchange) send() error {
	if h.build != nil {
		h.request = h.build(h.request[:0], h.seq)
		h.seq++
	}
	_, err := h.c.Write(h.request)
	return err
}

// read consumes one response and wants a 2xx whose body a kept-alive connection can frame.
func (h *httpExchange) read() error {
	resp, err := http.ReadResponse(h.br, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("status %q", resp.Status)
	}
	if resp.ContentLength < 0 && len(resp.TransferEncoding) == 0 {
		return fmt.Errorf("response without Content-Length or chunked body: cannot frame it on a kept-alive connection")
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}
