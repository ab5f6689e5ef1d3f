package binding

// Limits under attack: slowloris, the connection limit, many slow readers of a large body, and
// clients that vanish mid-response. Loopback only; every test is bounded in connections and
// time (the whole file runs in well under 60 s). Memory is the test process's VmRSS (client and
// server share the process, so the bounds include the clients' own buffers); descriptors are
// the entries of /proc/self/fd.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// needFiles raises RLIMIT_NOFILE's soft limit to at least n, or skips the test saying why.
func needFiles(t *testing.T, n uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("needs %d open files: getrlimit(RLIMIT_NOFILE): %v", n, err)
	}
	if lim.Cur >= n {
		return
	}
	if lim.Max < n {
		t.Skipf("needs %d open files: RLIMIT_NOFILE hard limit is %d (raise it, e.g. ulimit -Hn %d, as root)", n, lim.Max, n)
	}
	old := lim
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("needs %d open files: setrlimit(RLIMIT_NOFILE, cur %d -> %d, max %d): %v", n, old.Cur, n, lim.Max, err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
}

// openFDs counts this process's open descriptors.
func openFDs(t testing.TB) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("needs /proc/self/fd: %v", err)
	}
	return len(ents) - 1 // minus the descriptor ReadDir itself had open
}

// settle calls ok every 50 ms until it returns true (true) or d has passed (false).
func settle(d time.Duration, ok func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		if ok() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

// 1,000 connections each send a partial head and then nothing (slowloris). Meanwhile normal
// clients are served promptly; after HeaderTimeout (1 s) every slow connection gets 408 and is
// closed, and not much earlier than its deadline.
func TestSlowlorisManyIdlePartialHeads(t *testing.T) {
	const slow = 1000
	const headerTimeout = time.Second
	needFiles(t, 2*slow+512) // the clients' and the server's ends are both in this process
	a := testApp(t, Config{HeaderTimeout: headerTimeout}, 1, nil)

	conns := make([]net.Conn, 0, slow)
	sent := make([]time.Time, 0, slow)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < slow; i++ {
		c, err := net.Dial("tcp", addr(a))
		if err != nil {
			t.Fatalf("slow connection %d: %v", i, err)
		}
		if _, err := io.WriteString(c, "GET /id/1 HTTP/1.1\r\nHost: x\r\nX-Slow: "); err != nil {
			t.Fatalf("slow connection %d: %v", i, err)
		}
		conns = append(conns, c)
		sent = append(sent, time.Now())
	}
	opened := time.Since(sent[0])

	// Service to others while all of them hang: fresh connections and a keep-alive one. The
	// probes run until the first slow connection's deadline is near.
	var lat []time.Duration
	ka := dial(t, a)
	kbr := bufio.NewReader(ka)
	for i := 0; time.Since(sent[0]) < headerTimeout*8/10 || i < 10; i++ {
		start := time.Now()
		if got := body(t, roundTrip(t, ka, kbr, get("/id/7?name=k"), "GET")); got != "7 k" {
			t.Fatalf("keep-alive client got %q", got)
		}
		c := dial(t, a)
		if got := body(t, roundTrip(t, c, bufio.NewReader(c), get("/"), "GET")); got != "hi" {
			t.Fatalf("fresh client got %q", got)
		}
		c.Close()
		lat = append(lat, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	const prompt = 250 * time.Millisecond
	if max := lat[len(lat)-1]; max > prompt {
		t.Errorf("a normal client waited %v (bound %v) while %d slowloris connections were open", max, prompt, slow)
	}

	checkSlowlorisClosed(t, conns, sent, headerTimeout)
	t.Logf("%d slowloris connections opened in %v; normal client latency p50 %v max %v over %d probes",
		slow, opened, lat[len(lat)/2], lat[len(lat)-1], len(lat))

	// And the server still serves.
	c := dial(t, a)
	if got := body(t, roundTrip(t, c, bufio.NewReader(c), get("/"), "GET")); got != "hi" {
		t.Fatal(got)
	}
}

// checkSlowlorisClosed: every slow connection gets 408, then is closed, between 0.9 and 1 s + 2 s
// slack after its bytes were sent.
func checkSlowlorisClosed(t *testing.T, conns []net.Conn, sent []time.Time, headerTimeout time.Duration) {
	var early, late, wrong atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i, c := range conns {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, c net.Conn) {
			defer func() { <-sem; wg.Done() }()
			c.SetReadDeadline(sent[i].Add(headerTimeout + 3*time.Second))
			br := bufio.NewReader(c)
			res, err := http.ReadResponse(br, nil)
			took := time.Since(sent[i])
			if err == nil {
				_, err = io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			if err == nil && res.StatusCode != 408 {
				err = fmt.Errorf("status %d, want 408", res.StatusCode)
			}
			if err == nil {
				if rest, e := io.ReadAll(br); e != nil || len(rest) != 0 {
					err = fmt.Errorf("not closed after the 408 (read %q, %v)", rest, e)
				}
			}
			switch {
			case err != nil:
				wrong.Add(1)
				firstErr.CompareAndSwap(nil, fmt.Sprintf("slow connection %d after %v: %v", i, took, err))
			case took < headerTimeout*9/10:
				early.Add(1)
			case took > headerTimeout+2*time.Second:
				late.Add(1)
			}
		}(i, c)
	}
	wg.Wait()
	if wrong.Load() > 0 {
		t.Errorf("%d of %d slow connections not answered 408 + close; first: %v", wrong.Load(), len(conns), firstErr.Load())
	}
	if early.Load() > 0 || late.Load() > 0 {
		t.Errorf("408 + close came too early for %d and too late for %d of %d connections (header timeout %v)",
			early.Load(), late.Load(), len(conns), headerTimeout)
	}
}

// Past MaxConns every extra connection gets a clear 503 with Connection: close and is closed;
// the admitted ones keep working, and once some close, new connections are admitted again.
func TestConnectionLimitRefusesClearly(t *testing.T) {
	const max = 8
	a := testApp(t, Config{MaxConns: max}, 1, nil)
	in := make([]net.Conn, max)
	rd := make([]*bufio.Reader, max)
	for i := range in {
		in[i] = dial(t, a)
		rd[i] = bufio.NewReader(in[i])
		if got := body(t, roundTrip(t, in[i], rd[i], get("/"), "GET")); got != "hi" {
			t.Fatalf("admitted connection %d got %q", i, got)
		}
	}
	for i := 0; i < 5; i++ {
		c := dial(t, a)
		br := bufio.NewReader(c)
		if i%2 == 1 { // a client that sends first: the write may fail, the 503 is there anyway
			io.WriteString(c, get("/"))
		}
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("extra connection %d: no clear answer: %v", i, err)
		}
		body(t, res)
		if res.StatusCode != 503 || !res.Close {
			t.Fatalf("extra connection %d: status %d close %v, want 503 and close", i, res.StatusCode, res.Close)
		}
		expectClosedOrReset(t, c, br)
		c.Close()
	}
	for i := range in { // the refused ones took nothing from the admitted ones
		if got := body(t, roundTrip(t, in[i], rd[i], get("/id/3?name=z"), "GET")); got != "3 z" {
			t.Fatalf("admitted connection %d afterwards got %q", i, got)
		}
	}
	for i := 0; i < 3; i++ {
		in[i].Close()
	}
	// The server notices the three closes on its next read; then three new ones fit, not four.
	var fresh []net.Conn
	ok := settle(3*time.Second, func() bool {
		c, err := net.Dial("tcp", addr(a))
		if err != nil {
			return false
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		res := roundTripErr(c, get("/"))
		if res != "hi" {
			c.Close()
			return false
		}
		fresh = append(fresh, c)
		return len(fresh) == 3
	})
	defer func() {
		for _, c := range fresh {
			c.Close()
		}
	}()
	if !ok {
		t.Fatalf("after 3 of %d connections closed, only %d new ones were admitted within 3 s", max, len(fresh))
	}
	c := dial(t, a)
	if got := roundTripErr(c, get("/")); !strings.HasPrefix(got, "status 503") {
		t.Fatalf("the limit no longer holds after connections were replaced: got %q", got)
	}
}

// expectClosedOrReset checks that the server closed c after the response: EOF, or a reset
// (the server closes at once, so a request it never read makes its kernel answer with RST).
func expectClosedOrReset(t testing.TB, c net.Conn, br *bufio.Reader) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	rest, err := io.ReadAll(br)
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("connection not closed: %v", err)
	}
	if len(rest) != 0 {
		t.Fatalf("unexpected bytes after the 503: %q", rest)
	}
}

// roundTripErr sends raw and returns the body of a 200, or "status N" / the error.
func roundTripErr(c net.Conn, raw string) string {
	if _, err := io.WriteString(c, raw); err != nil {
		return err.Error()
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err.Error()
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return err.Error()
	}
	if res.StatusCode != 200 {
		return fmt.Sprintf("status %d", res.StatusCode)
	}
	return string(b)
}

// Clients that disconnect mid-response (after the head, after part of the body, before any
// byte; FIN or RST) of a large shared body, a streamed body and a detached (async) response
// leak nothing: after 2,000 of them the process's descriptors return to the baseline (+4) and
// its RSS to the baseline + 32 MiB, both measured after a warm-up round of the same mix, and
// every stream writer learns that its connection is gone.
func TestDisconnectMidResponseLeaksNothing(t *testing.T) {
	const rounds, perRound = 40, 50 // 2,000 clients, 50 at a time
	needFiles(t, 2*perRound+512)
	big := newBigBody()
	defer big.Release()
	var d disconnects
	a := d.app(t, big)
	// Warm-up: pools, buffers and the Go heap reach their working size.
	for r := 0; r < 4; r++ {
		d.round(t, a, r, perRound)
	}
	settle(5*time.Second, func() bool { return d.streamClosed.Load() == d.streamStarted.Load() })
	runtime.GC()
	time.Sleep(200 * time.Millisecond)
	baseFD, baseRSS := openFDs(t), rssKiB(t)
	start := time.Now()
	for r := 0; r < rounds; r++ {
		d.round(t, a, r, perRound)
	}
	elapsed := time.Since(start)
	const fdSlack = 4
	rssSlackKiB := int64(32 << 10)
	if asanBuild {
		rssSlackKiB = 1 << 40 // quarantined frees are not leaks; LeakSanitizer judges leaks here
		t.Log("ASan build: RSS is not checked (freed memory stays quarantined); descriptors are")
	}
	var fd int
	var rss int64
	ok := settle(10*time.Second, func() bool {
		runtime.GC()
		fd, rss = openFDs(t), rssKiB(t)
		return fd <= baseFD+fdSlack && rss <= baseRSS+rssSlackKiB && d.streamClosed.Load() == d.streamStarted.Load()
	})
	t.Logf("%d disconnecting clients in %v; fds %d -> %d, RSS %d -> %d KiB; streams closed %d of %d",
		rounds*perRound, elapsed.Round(time.Millisecond), baseFD, fd, baseRSS, rss, d.streamClosed.Load(), d.streamStarted.Load())
	if !ok {
		if fd > baseFD+fdSlack {
			t.Errorf("descriptors leaked: %d open after %d disconnects, baseline %d (+%d allowed)", fd, rounds*perRound, baseFD, fdSlack)
		}
		if rss > baseRSS+rssSlackKiB {
			t.Errorf("RSS %d KiB after %d disconnects, baseline %d KiB (+%d KiB allowed)", rss, rounds*perRound, baseRSS, rssSlackKiB)
		}
		if d.streamClosed.Load() != d.streamStarted.Load() {
			t.Errorf("%d of %d stream writers never learned their connection closed (ErrClosed)",
				d.streamStarted.Load()-d.streamClosed.Load(), d.streamStarted.Load())
		}
	}
	// The server still serves.
	c := dial(t, a)
	if got := body(t, roundTrip(t, c, bufio.NewReader(c), get("/"), "GET")); got != "hi" {
		t.Fatal(got)
	}
	d.writers.Wait()
}

// disconnects is TestDisconnectMidResponseLeaksNothing's server side: its stream writers and
// how many streams started and learned their connection closed.
type disconnects struct {
	writers                     sync.WaitGroup
	streamClosed, streamStarted atomic.Int64
}

// app serves a large shared body, a stream written from a goroutine and a detached response.
func (d *disconnects) app(t *testing.T, big *Body) *App {
	return testApp(t, Config{}, 1, func(a *App) {
		a.Get("/big", func(w *Response, r *Request) { w.SendBody(big) })
		a.Get("/stream", func(w *Response, r *Request) {
			s, err := w.Stream(-1)
			if err != nil {
				return
			}
			d.streamStarted.Add(1)
			d.writers.Add(1)
			go func() {
				defer d.writers.Done()
				chunk := bytes.Repeat([]byte("s"), 32<<10)
				deadline := time.Now().Add(20 * time.Second)
				for time.Now().Before(deadline) {
					if _, err := s.Write(chunk); err != nil {
						if errors.Is(err, ErrClosed) {
							d.streamClosed.Add(1)
						}
						s.Close()
						return
					}
				}
				s.Close() // never reached unless the server kept writing to a vanished client
			}()
		})
		a.Get("/async", func(w *Response, r *Request) {
			late := w.Detach()
			go func() {
				time.Sleep(30 * time.Millisecond)
				late.WriteString(strings.Repeat("a", 64<<10))
				late.End() // the client may be gone: whatever it returns, nothing may leak
			}()
		})
	})
}

// round connects perRound clients at once, each asking for one of the paths and vanishing
// before, during or after the response (FIN or RST).
func (d *disconnects) round(t *testing.T, a *App, r, perRound int) {
	paths := []string{"/big", "/stream", "/async"}
	var wg sync.WaitGroup
	for i := 0; i < perRound; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := net.Dial("tcp", addr(a))
			if err != nil {
				t.Error(err)
				return
			}
			tc := c.(*net.TCPConn)
			if (r+i)%2 == 0 {
				tc.SetLinger(0) // close with RST
			}
			c.SetDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(c, get(paths[i%len(paths)]))
			switch i % 3 {
			case 0: // gone before reading anything
			case 1: // after the first bytes
				buf := make([]byte, 1)
				io.ReadFull(c, buf)
			default: // mid-body
				buf := make([]byte, 64<<10)
				io.ReadFull(c, buf)
			}
			c.Close()
		}(i)
	}
	wg.Wait()
}
