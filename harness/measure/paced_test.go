package measure

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/bindrace/bindrace/harness/internal/wstest"
	"github.com/bindrace/bindrace/harness/scenario"
)

func TestPacedWebSocketEcho(t *testing.T) {
	sc, err := scenario.ByName("ws-echo")
	if err != nil {
		t.Fatal(err)
	}
	run := func(addr string) (int64, error) {
		n, _, err := pacedRun(context.Background(), addr, exchangeFor(sc, addr, nil), 25, 10, 0, 5*time.Second)
		return n, err
	}

	// 25 messages in batches of 10, 10 and 5, every echo checked.
	if n, err := run(wstest.EchoServer(t, nil)); err != nil || n != 25 {
		t.Errorf("echo server: %d echoes, %v; want 25, nil", n, err)
	}

	corrupt := wstest.EchoServer(t, func(op int, msg []byte) (int, []byte) {
		msg[7] ^= 1
		return op, msg
	})
	if n, err := run(corrupt); err == nil || n != 0 || !strings.Contains(err.Error(), "echo differs") {
		t.Errorf("corrupting server: %d echoes, %v; want 0 and \"echo differs\"", n, err)
	}

	text := wstest.EchoServer(t, func(_ int, msg []byte) (int, []byte) { return 1, msg })
	if _, err := run(text); err == nil || !strings.Contains(err.Error(), "want a binary message") {
		t.Errorf("text echo: %v; want the opcode named", err)
	}

	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer plain.Close()
	if _, err := run(strings.TrimPrefix(plain.URL, "http://")); err == nil || !strings.Contains(err.Error(), "want status 101") {
		t.Errorf("HTTP server: %v; want the upgrade refusal named", err)
	}
}

// rawServer answers every request head it reads on a connection with answer, and records the
// size of each read, so a test can see how the client's requests arrived.
func rawServer(t *testing.T, answer string) (addr string, reads chan int) {
	t.Helper()
	reads = make(chan int, 1000)
	addr = loopback.Serve(t, func(c net.Conn, chunk []byte) {
		reads <- len(chunk)
		for range strings.Count(string(chunk), "\r\n\r\n") {
			fmt.Fprint(c, answer)
		}
	})
	return addr, reads
}

// TestPacedHTTP: responses framed by Content-Length or chunked are read whole; a batch leaves
// in one write; a non-2xx or an unframeable response is an error naming it.
func TestPacedHTTP(t *testing.T) {
	sc, err := scenario.ByName("ping")
	if err != nil {
		t.Fatal(err)
	}
	run := func(addr string, count int64) (int64, error) {
		n, _, err := pacedRun(context.Background(), addr, exchangeFor(sc, addr, nil), count, 10, time.Millisecond, 5*time.Second)
		return n, err
	}
	length, reads := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")
	if n, err := run(length, 30); err != nil || n != 30 {
		t.Errorf("content-length: %d, %v", n, err)
	}
	one := len(sc.Request(length))
	for i := 0; i < 3; i++ {
		if got := <-reads; got != 10*one {
			t.Errorf("batch %d arrived in a read of %d bytes, want the 10 requests' %d at once", i, got, 10*one)
		}
	}
	chunked, _ := rawServer(t, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n")
	if n, err := run(chunked, 12); err != nil || n != 12 {
		t.Errorf("chunked: %d, %v", n, err)
	}
	for answer, want := range map[string]string{
		"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n": `status "503 Service Unavailable"`,
		"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\nhi":           "cannot frame",
		"SPDY/3 200 OK\r\n\r\n": "malformed HTTP",
	} {
		addr, _ := rawServer(t, answer)
		if n, err := run(addr, 5); err == nil || n != 0 || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %d answered, error %v, want %q", answer, n, err, want)
		}
	}
}

// TestHeldConnCounts: the bytes each way are counted, held ones once they leave.
func TestHeldConnCounts(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	h := &heldConn{Conn: a, hold: true}
	h.Write([]byte("abc"))
	h.Write([]byte("de"))
	if h.written != 0 {
		t.Errorf("held bytes counted before the flush: %d", h.written)
	}
	go func() {
		r := bufio.NewReader(b)
		buf := make([]byte, 5)
		r.Read(buf)
		b.Write([]byte("xyz"))
	}()
	if err := h.flush(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	h.Read(buf)
	if h.written != 5 || h.readIn != 3 {
		t.Errorf("written %d read %d, want 5 and 3", h.written, h.readIn)
	}
}

// TestPacedBuildsEveryRequest: with a database scenario's builder, every request of a paced
// run is rendered afresh with the next id of the sequence, across batches, and still leaves a
// batch in one write.
func TestPacedBuildsEveryRequest(t *testing.T) {
	sc, err := scenario.ByName("get-user")
	if err != nil {
		t.Fatal(err)
	}
	paths := make(chan string, 100)
	addr := loopback.Serve(t, func(c net.Conn, chunk []byte) {
		for _, head := range strings.Split(string(chunk), "\r\n\r\n") {
			if line, _, ok := strings.Cut(head, "\r\n"); ok {
				paths <- strings.Fields(line)[1]
				fmt.Fprint(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
			}
		}
	})
	build := func(dst []byte, seq uint64) []byte { return sc.AppendRequest(dst, addr, int64(100+seq)) }
	if n, _, err := pacedRun(context.Background(), addr, exchangeFor(sc, addr, build), 25, 10, time.Millisecond, 5*time.Second); err != nil || n != 25 {
		t.Fatalf("paced run: %d answered, %v; want 25, nil", n, err)
	}
	for i := range 25 {
		if got, want := <-paths, fmt.Sprintf("/db/users/%d", 100+i); got != want {
			t.Fatalf("request %d asked for %s, want %s", i, got, want)
		}
	}
}
