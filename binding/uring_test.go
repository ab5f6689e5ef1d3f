package binding

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The io_uring loop (docs/io_uring.md). These run on io_uring in every `go test`, whatever
// BINDRACE_LOOP says; `make test-uring` runs the whole package on it. They fail where the machine
// allows io_uring and the loop does not work, and skip, naming the kernel's refusal, where the
// kernel refuses it (kernel.io_uring_disabled, a seccomp profile).

// uringApp is testApp with its loops on io_uring (env: more of the loop's knobs for the test).
func uringApp(t *testing.T, cfg Config, threads int, env map[string]string, extra func(*App)) *App {
	t.Helper()
	t.Setenv("BINDRACE_LOOP", "uring")
	for k, v := range env {
		t.Setenv(k, v)
	}
	probe := New(Config{})
	err := probe.Listen("127.0.0.1:0", 1)
	probe.Shutdown(t.Context()) // frees the app, also after a failed Listen
	if err != nil {
		if strings.Contains(err.Error(), "io_uring refused") {
			t.Skipf("skipping: the kernel refuses io_uring here: %v", err)
		}
		t.Fatal(err)
	}
	a := testApp(t, cfg, threads, extra)
	if got := a.Backend(); got != "io_uring" {
		t.Fatalf("BINDRACE_LOOP=uring: Backend() = %q", got)
	}
	return a
}

// pipelined sends n requests for path at once on c and reads n answers; "" or what went wrong.
func pipelined(c net.Conn, path string, n int) string {
	c.SetDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.WriteString(c, strings.Repeat(get(path), n)); err != nil {
		return err.Error()
	}
	br := bufio.NewReader(c)
	for i := 0; i < n; i++ {
		if s := roundTripErr2(br); s != "" {
			return fmt.Sprintf("answer %d: %s", i, s)
		}
	}
	return ""
}

// roundTripErr2 reads one response whose body is "hi" or "static"; "" or what went wrong.
func roundTripErr2(br *bufio.Reader) string {
	line, err := br.ReadString('\n')
	if err != nil {
		return err.Error()
	}
	if !strings.HasPrefix(line, "HTTP/1.1 200") {
		return "status line " + line
	}
	n := -1
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return err.Error()
		}
		if h == "\r\n" {
			break
		}
		if v, ok := strings.CutPrefix(strings.ToLower(h), "content-length: "); ok {
			fmt.Sscanf(v, "%d", &n)
		}
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(br, b); err != nil {
		return err.Error()
	}
	if s := string(b); s != "hi" && s != "static" {
		return "body " + s
	}
	return ""
}

func TestUringServes(t *testing.T) {
	a := uringApp(t, Config{}, 2, nil, nil)
	errs := concurrently(20, func(i int) error {
		c, err := net.Dial("tcp", addr(a))
		if err != nil {
			return err
		}
		defer c.Close()
		path := "/"
		if i%2 == 1 {
			path = "/s"
		}
		if s := pipelined(c, path, 50); s != "" {
			return fmt.Errorf("%s", s)
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// One provided buffer for every connection: receives end on -ENOBUFS and are re-armed as
// buffers come back; every request is answered, and the loop does not spin meanwhile.
func TestUringNoBuffers(t *testing.T) {
	a := uringApp(t, Config{}, 1, map[string]string{"BINDRACE_URING_BUFS": "1"}, nil)
	errs := concurrently(40, func(i int) error {
		c, err := net.Dial("tcp", addr(a))
		if err != nil {
			return err
		}
		defer c.Close()
		for k := 0; k < 5; k++ {
			if s := pipelined(c, "/s", 20); s != "" {
				return fmt.Errorf("round %d: %s", k, s)
			}
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// A submission queue of 4 entries for 60 connections: sends fall back to a direct sendmsg and
// receives wait for a free entry; no response is lost.
func TestUringFullSubmissionQueue(t *testing.T) {
	a := uringApp(t, Config{}, 1, map[string]string{"BINDRACE_URING_ENTRIES": "4"}, nil)
	var wg sync.WaitGroup
	errs := make([]string, 60)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr(a))
			if err != nil {
				errs[i] = err.Error()
				return
			}
			defer c.Close()
			errs[i] = pipelined(c, "/", 30)
		}()
	}
	wg.Wait()
	for i, s := range errs {
		if s != "" {
			t.Errorf("connection %d: %s", i, s)
		}
	}
}

// An idle io_uring loop waits without using the CPU (no busy loop), and wakes for new work.
func TestUringIdleSleeps(t *testing.T) {
	a := uringApp(t, Config{}, 1, nil, nil)
	before := a.Stats()
	time.Sleep(300 * time.Millisecond)
	after := a.Stats()
	if d := after.Wakeups - before.Wakeups; d > 5 {
		t.Errorf("idle loop woke %d times in 300 ms", d)
	}
	c := dial(t, a)
	if s := pipelined(c, "/", 1); s != "" {
		t.Fatal(s)
	}
}

func TestUringUnknownLoop(t *testing.T) {
	t.Setenv("BINDRACE_LOOP", "kqueue")
	a := New(Config{})
	err := a.Listen("127.0.0.1:0", 1)
	a.Shutdown(t.Context())
	if err == nil || !strings.Contains(err.Error(), "BINDRACE_LOOP=kqueue: unknown loop") {
		t.Fatalf("Listen with BINDRACE_LOOP=kqueue = %v", err)
	}
}

func TestEpollIsTheDefault(t *testing.T) {
	t.Setenv("BINDRACE_LOOP", "")
	a := testApp(t, Config{}, 1, nil)
	if got := a.Backend(); got != "epoll" {
		t.Fatalf("Backend() = %q without BINDRACE_LOOP", got)
	}
}

// The wait the cachegrind mode asks for (BINDRACE_URING_WAIT=poll, for valgrind): the loop
// serves, sleeps when idle and stops as with its wait in io_uring_enter.
func TestUringPollWait(t *testing.T) {
	a := uringApp(t, Config{}, 1, map[string]string{"BINDRACE_URING_WAIT": "poll"}, nil)
	if a.uringDeferred() {
		t.Fatal("the poll wait runs on a deferred ring, which its ppoll would never see")
	}
	c := dial(t, a)
	if s := pipelined(c, "/", 20); s != "" {
		t.Fatal(s)
	}
	before := a.Stats()
	time.Sleep(300 * time.Millisecond)
	if d := a.Stats().Wakeups - before.Wakeups; d > 5 {
		t.Errorf("idle loop woke %d times in 300 ms", d)
	}
	if s := pipelined(c, "/s", 20); s != "" {
		t.Fatal(s)
	}
}

func TestUringUnknownWait(t *testing.T) {
	t.Setenv("BINDRACE_LOOP", "uring")
	t.Setenv("BINDRACE_URING_WAIT", "spin")
	a := New(Config{})
	err := a.Listen("127.0.0.1:0", 1)
	a.Shutdown(t.Context())
	if err == nil || !strings.Contains(err.Error(), "BINDRACE_URING_WAIT=spin: unknown wait (enter or poll)") {
		t.Fatalf("Listen with BINDRACE_URING_WAIT=spin = %v", err)
	}
}

// deferredApp is uringApp asking for deferred task work (the default): it fails where the
// kernel gave the loop a ring without it for any reason but refusing the flags, and skips,
// naming the refusal, where the kernel refused them (before Linux 6.1).
func deferredApp(t *testing.T, cfg Config, extra func(*App)) *App {
	t.Helper()
	a := uringApp(t, cfg, 1, nil, extra)
	if !a.uringDeferred() {
		note := backendNote()
		if strings.Contains(note, "deferred task work refused") {
			t.Skipf("skipping: this kernel has no io_uring deferred task work (IORING_SETUP_DEFER_TASKRUN, Linux 6.1+): %s", note)
		}
		t.Fatalf("BINDRACE_LOOP=uring: no deferred task work (%s)", note)
	}
	if note := backendNote(); note != "io_uring (deferred task work)" {
		t.Fatalf("backend note %q", note)
	}
	return a
}

// answerAfter sends one GET / on c and returns how long the answer took (it fails the test
// past the connection's deadline).
func answerAfter(t *testing.T, c net.Conn, br *bufio.Reader) time.Duration {
	t.Helper()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	if _, err := io.WriteString(c, get("/")); err != nil {
		t.Fatal(err)
	}
	if s := roundTripErr2(br); s != "" {
		t.Fatal(s)
	}
	return time.Since(start)
}

// A deferred ring's completions are posted only while the loop's thread is inside
// io_uring_enter; nothing that polls sees them (docs/io_uring.md: the eventfd the kernel
// signals for them does so a grace period of RCU late, 10 to 130 ms here). An idle loop must
// still wake at once: after 300 ms of nothing (it waits inside the step by then) and after 2 ms
// (its raw wait in Go, 10 ms long), each request is answered within a second, and the median
// after the short pauses within 5 ms: a raw wait that missed the completion would end at its
// timeout, some 8 ms later, and one woken by that eventfd 10 ms or more. The plain ring
// (BINDRACE_URING_DEFER=0, the fallback) is held to the same bounds.
func TestUringIdleLoopWakes(t *testing.T) {
	for _, mode := range []string{"deferred", "plain"} {
		t.Run(mode, func(t *testing.T) {
			var a *App
			if mode == "deferred" {
				a = deferredApp(t, Config{}, nil)
			} else {
				a = uringApp(t, Config{}, 1, map[string]string{"BINDRACE_URING_DEFER": "0"}, nil)
				if a.uringDeferred() {
					t.Fatal("BINDRACE_URING_DEFER=0 runs on a deferred ring")
				}
			}
			c := dial(t, a)
			br := bufio.NewReader(c)
			answerAfter(t, c, br)
			for i := 0; i < 3; i++ {
				time.Sleep(300 * time.Millisecond)
				if d := answerAfter(t, c, br); d > time.Second {
					t.Errorf("after 300 ms idle, answered in %v", d)
				}
			}
			var took []time.Duration
			for i := 0; i < 40; i++ {
				time.Sleep(2 * time.Millisecond)
				d := answerAfter(t, c, br)
				if d > time.Second {
					t.Errorf("after 2 ms idle, answered in %v", d)
				}
				took = append(took, d)
			}
			slices.Sort(took)
			t.Logf("after 2 ms pauses: median %v, max %v", took[len(took)/2], took[len(took)-1])
			if m := took[len(took)/2]; m > 5*time.Millisecond {
				t.Errorf("after 2 ms pauses the median answer took %v", m)
			}
		})
	}
}

// The answers of a step ride on the io_uring_enter that waits for the next request only when
// their completion has nothing to do (docs/io_uring.md, "Submit and wait together"). An answer
// with Connection: close has: the close, once it is sent. On the Go route (the binding's raw
// wait) and on a static one (the wait inside the step) the client sees the close at once, not
// when that wait times out (10 ms; the median would be that).
func TestUringCloseFollowsTheAnswer(t *testing.T) {
	a := deferredApp(t, Config{}, func(a *App) {
		if err := a.Static("GET", "/static", 200, "text/plain", []byte("hi")); err != nil {
			t.Fatal(err)
		}
	})
	for _, path := range []string{"/", "/static"} {
		var took []time.Duration
		for i := 0; i < 21; i++ {
			c := dial(t, a)
			c.SetDeadline(time.Now().Add(5 * time.Second))
			start := time.Now()
			if _, err := io.WriteString(c, "GET "+path+" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(c)
			took = append(took, time.Since(start))
			c.Close()
			if err != nil || !strings.HasPrefix(string(b), "HTTP/1.1 200") {
				t.Fatalf("%s: %q, %v", path, b, err)
			}
		}
		slices.Sort(took)
		t.Logf("%s: request to close, median %v, max %v", path, took[len(took)/2], took[len(took)-1])
		if m := took[len(took)/2]; m > 4*time.Millisecond {
			t.Errorf("%s: the close followed the answer after %v (median of 21)", path, m)
		}
	}
}

// While a detached answer is owed, a deferred loop waits inside the step (the netpoller would
// not see its completions): the answer another goroutine ends 200 ms later wakes it through
// the inbox, and a request on another connection meanwhile is answered at once.
func TestUringDeferredOwedWait(t *testing.T) {
	a := deferredApp(t, Config{}, func(a *App) {
		a.Get("/later", func(w *Response, r *Request) {
			d := w.Detach()
			go func() {
				time.Sleep(200 * time.Millisecond)
				d.WriteString("hi")
				d.End()
			}()
		})
	})
	slow := dial(t, a)
	slow.SetDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	if _, err := io.WriteString(slow, get("/later")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the loop is owed the answer and idle
	c := dial(t, a)
	if d := answerAfter(t, c, bufio.NewReader(c)); d > time.Second {
		t.Errorf("while an answer was owed, another request took %v", d)
	}
	if s := roundTripErr2(bufio.NewReader(slow)); s != "" {
		t.Fatal(s)
	}
	if d := time.Since(start); d > 1200*time.Millisecond {
		t.Errorf("the detached answer (sent after 200 ms) arrived after %v", d)
	}
}

func TestUringUnknownDefer(t *testing.T) {
	t.Setenv("BINDRACE_LOOP", "uring")
	t.Setenv("BINDRACE_URING_DEFER", "yes")
	a := New(Config{})
	err := a.Listen("127.0.0.1:0", 1)
	a.Shutdown(t.Context())
	if err == nil || !strings.Contains(err.Error(), "BINDRACE_URING_DEFER=yes: unknown value (1 or 0)") {
		t.Fatalf("Listen with BINDRACE_URING_DEFER=yes = %v", err)
	}
}
