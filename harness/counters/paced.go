package counters

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
)

// pacedRun sends exactly count requests on one connection in batches of pipe, waiting for a
// whole batch's responses and then gap before writing the next. The gap makes every batch meet
// an idle server (its read finds nothing and it parks in epoll), so each batch costs the server
// the same instructions; without it whether the next batch is already there when the server
// reads again is a race between the client and the valgrind'ed server, and the per-response
// figure wanders by a few percent run to run (measured here: ±1.5% at N=20000, pipelining 10).
// ex says what the connection speaks: HTTP requests, or WebSocket messages to be echoed.
func pacedRun(ctx context.Context, addr string, ex exchange, count int64, pipe int, gap, timeout time.Duration) (int64, time.Duration, error) {
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, 0, err
	}
	defer c.Close()
	br := bufio.NewReaderSize(c, 64<<10)
	c.SetDeadline(time.Now().Add(timeout))
	if err := ex.open(c, br); err != nil {
		return 0, 0, err
	}
	batch := bytes.Repeat(ex.request(), pipe)
	one := len(batch) / pipe
	start := time.Now()
	var done int64
	for done < count {
		if err := ctx.Err(); err != nil {
			return done, time.Since(start), err
		}
		k := min(int64(pipe), count-done)
		c.SetDeadline(time.Now().Add(timeout))
		if _, err := c.Write(batch[:one*int(k)]); err != nil {
			return done, time.Since(start), fmt.Errorf("write: %w", err)
		}
		for i := int64(0); i < k; i++ {
			if err := ex.read(br); err != nil {
				return done, time.Since(start), fmt.Errorf("response %d: %w", done+1, err)
			}
			done++
		}
		if gap > 0 && done < count {
			time.Sleep(gap)
		}
	}
	return done, time.Since(start), nil
}

// exchange is what a paced connection speaks.
type exchange interface {
	open(c net.Conn, br *bufio.Reader) error // anything before the first request (an upgrade)
	request() []byte                         // one request's bytes; a batch repeats them
	read(br *bufio.Reader) error             // consume one answer, or say what is wrong with it
}

// exchangeFor is the exchange of sc's scenario against addr.
func exchangeFor(sc scenario.Scenario, addr string) exchange {
	if sc.WebSocket() {
		return &wsExchange{host: addr, path: sc.Path, payload: sc.Body}
	}
	return httpExchange(sc.Request(addr))
}

// httpExchange sends one HTTP/1.1 request and reads its response.
type httpExchange []byte

func (httpExchange) open(net.Conn, *bufio.Reader) error { return nil }
func (h httpExchange) request() []byte                  { return h }
func (httpExchange) read(br *bufio.Reader) error        { return readResponse(br) }

// readResponse consumes one HTTP/1.1 response (Content-Length or chunked) and wants a 2xx.
func readResponse(br *bufio.Reader) error {
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	f := strings.Fields(line)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/1.") {
		return fmt.Errorf("malformed status line %q", line)
	}
	status, err := strconv.Atoi(f[1])
	if err != nil || status < 200 || status > 299 {
		return fmt.Errorf("status %q", strings.TrimSpace(line))
	}
	length, chunked := int64(-1), false
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		h = strings.TrimRight(h, "\r\n")
		if h == "" {
			break
		}
		name, val, _ := strings.Cut(h, ":")
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			if length, err = strconv.ParseInt(val, 10, 64); err != nil {
				return fmt.Errorf("bad content-length %q", val)
			}
		case "transfer-encoding":
			chunked = strings.Contains(strings.ToLower(val), "chunked")
		}
	}
	switch {
	case chunked:
		for {
			sz, err := br.ReadString('\n')
			if err != nil {
				return err
			}
			sz, _, _ = strings.Cut(strings.TrimSpace(sz), ";")
			n, err := strconv.ParseInt(sz, 16, 64)
			if err != nil {
				return fmt.Errorf("bad chunk size %q", sz)
			}
			if n == 0 {
				for { // trailers
					t, err := br.ReadString('\n')
					if err != nil {
						return err
					}
					if strings.TrimRight(t, "\r\n") == "" {
						return nil
					}
				}
			}
			if _, err := io.CopyN(io.Discard, br, n+2); err != nil {
				return err
			}
		}
	case length >= 0:
		_, err := io.CopyN(io.Discard, br, length)
		return err
	default:
		return fmt.Errorf("response without Content-Length or chunked body: cannot frame it on a kept-alive connection")
	}
}
