package db

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/loopback"
)

// rawPair is a loopback TCP connection: the client's end wrapped by RawSocket, the server's
// end as the standard library gives it.
func rawPair(t *testing.T) (raw, peer net.Conn) {
	t.Helper()
	ln, port := loopback.Listen(t)
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer, ok := <-accepted
	if !ok {
		t.Fatalf("accept on port %d failed", port)
	}
	raw = RawSocket(c)
	if _, ok := raw.(*rawConn); !ok {
		t.Fatalf("RawSocket(%T) = %T, want the raw connection", c, raw)
	}
	t.Cleanup(func() { raw.Close(); peer.Close() })
	deadline := time.Now().Add(30 * time.Second)
	raw.SetDeadline(deadline)
	peer.SetDeadline(deadline)
	return raw, peer
}

// Bytes go both ways intact, a write larger than the socket's buffers waits for the peer to
// read (EAGAIN midway), and the peer's close reads as io.EOF.
func TestRawSocketCarriesBytesBothWays(t *testing.T) {
	raw, peer := rawPair(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<18) // 4 MiB: more than the kernel buffers
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(peer, int64(len(big))))
		got <- b
	}()
	if n, err := raw.Write(big); n != len(big) || err != nil {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(big))
	}
	if b := <-got; !bytes.Equal(b, big) {
		t.Fatalf("the peer read %d bytes, not the %d written", len(b), len(big))
	}
	if _, err := peer.Write([]byte("answer")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := io.ReadFull(raw, buf); err != nil || string(buf) != "answer" {
		t.Fatalf("read %q, %v", buf, err)
	}
	peer.Close()
	if n, err := raw.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("Read after the peer closed = %d, %v; want 0, io.EOF", n, err)
	}
}

// A read deadline ends a read with nothing to read as a timeout (what pgx's cancellation sets),
// and a closed connection refuses reads and writes with net.ErrClosed; neither hangs.
func TestRawSocketDeadlineAndClose(t *testing.T) {
	raw, _ := rawPair(t)
	raw.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	_, err := raw.Read(make([]byte, 1))
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read past its deadline: %v, want a timeout", err)
	}
	raw.Close()
	if _, err := raw.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Read after Close: %v, want net.ErrClosed", err)
	}
	if _, err := raw.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Write after Close: %v, want net.ErrClosed", err)
	}
}

// A connection that is not a socket (a TLS one, a pipe) is left as it is.
func TestRawSocketLeavesOtherConnections(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if c := RawSocket(a); c != a {
		t.Fatalf("RawSocket(net.Pipe) = %T, want the pipe itself", c)
	}
}

// A read and a write allocate nothing: each runs its callback bound once, with its state in
// the connection (a closure per call allocated it, and its results, every time).
func TestRawSocketAllocatesNothing(t *testing.T) {
	raw, peer := rawPair(t)
	go func() { // echoes every byte, with the standard library's allocation-free read and write
		var b [64]byte
		for {
			n, err := peer.Read(b[:])
			if err != nil {
				return
			}
			if _, err := peer.Write(b[:n]); err != nil {
				return
			}
		}
	}()
	var b [1]byte
	round := func() {
		if _, err := raw.Write(b[:]); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(raw, b[:]); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		round()
	}
	if allocs := testing.AllocsPerRun(200, round); allocs != 0 {
		t.Errorf("%v allocations per write and read", allocs)
	}
}
