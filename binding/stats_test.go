package binding

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// Ten pipelined requests in one write: one read, one send and (for a Go route) one crossing
// into Go for all ten, which Stats shows.
func TestStats(t *testing.T) {
	app := New(Config{})
	app.Get("/", func(w *Response, r *Request) { w.WriteString("hi") })
	if s := app.Stats(); s != (Stats{}) {
		t.Errorf("before Listen: %+v", s)
	}
	if err := app.Listen("127.0.0.1:0", 1); err != nil {
		t.Fatal(err)
	}
	defer app.Shutdown(t.Context())
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", app.Port()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	before := app.Stats()
	c.Write([]byte(strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 10)))
	br := bufio.NewReader(c)
	for i := 0; i < 10; i++ {
		if err := readOK(br); err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
	}
	// The loop counts a send right after the syscall returns, which may be after the client
	// has read it: wait for the count, briefly.
	after := app.Stats()
	for deadline := time.Now().Add(time.Second); after.Sends == before.Sends && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		after = app.Stats()
	}
	if d := after.Requests - before.Requests; d != 10 {
		t.Errorf("requests %d, want 10", d)
	}
	if d := after.Reads - before.Reads; d < 1 || d > 2 {
		t.Errorf("reads %d for one pipelined write", d)
	}
	if after.Wakeups <= before.Wakeups || after.Sends <= before.Sends || after.Batches <= before.Batches {
		t.Errorf("before %+v after %+v", before, after)
	}
}

// readOK reads one response with a Content-Length body and wants 200.
func readOK(br *bufio.Reader) error {
	line, err := br.ReadString('\n')
	if err != nil {
		return err
	}
	if !strings.HasPrefix(line, "HTTP/1.1 200") {
		return fmt.Errorf("status %q", line)
	}
	n := 0
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		if h == "\r\n" {
			break
		}
		if k, v, ok := strings.Cut(h, ":"); ok && strings.EqualFold(k, "content-length") {
			fmt.Sscan(strings.TrimSpace(v), &n)
		}
	}
	_, err = br.Discard(n)
	return err
}
