package binding

import (
	"bufio"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestHandlerPanic(t *testing.T) {
	a := testApp(t, Config{}, 1, func(a *App) {
		a.Get("/panic", func(w *Response, r *Request) {
			w.WriteString("partial")
			panic("boom")
		})
	})
	c := dial(t, a)
	br := bufio.NewReader(c)
	res := roundTrip(t, c, br, get("/panic")+get("/"), "GET")
	if got := body(t, res); res.StatusCode != 500 || got != "" {
		t.Fatalf("%d %q", res.StatusCode, got)
	}
	if got := body(t, roundTrip(t, c, br, "", "GET")); got != "hi" {
		t.Fatal(got)
	}
	// Pipelined into one batch: panics first, in the middle and twice in a row are each their
	// request's 500, and every other request of the batch is answered, in order.
	paths := []string{"/", "/panic", "/", "/panic", "/panic", "/"}
	var raw string
	for _, p := range paths {
		raw += get(p)
	}
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		res := roundTrip(t, c, br, "", "GET")
		got := body(t, res)
		if want := map[string]int{"/": 200, "/panic": 500}[p]; res.StatusCode != want || (p == "/" && got != "hi") {
			t.Errorf("response %d (%s): %d %q", i, p, res.StatusCode, got)
		}
	}
}

// An idle loop that a goroutine owes a detached answer must wait where the Go scheduler sees it
// (parked in the netpoller: "IO wait"), not inside the cgo step ("syscall"), which keeps its P
// from that goroutine. Owed nothing, it waits in the step, the cheaper way. Streams count too.
func TestIdleLoopWaitsWhereOwedGoroutinesCanRun(t *testing.T) {
	// One release per path, made before the handlers run: no write for them to race with.
	release := map[string]chan struct{}{"/later": make(chan struct{}), "/stream": make(chan struct{})}
	// A loop parked in the netpoller goes back to the step at its next event or timeout sweep;
	// a short header timeout makes the sweeps (a quarter of it) come every 50 ms.
	a := testApp(t, Config{HeaderTimeout: 200 * time.Millisecond}, 1, func(a *App) {
		a.Get("/later", func(w *Response, r *Request) {
			d := w.Detach()
			go func() {
				<-release["/later"]
				d.WriteString("late")
				d.End()
			}()
		})
		a.Get("/stream", func(w *Response, r *Request) {
			s, err := w.Stream(-1)
			if err != nil {
				t.Error(err)
				return
			}
			go func() {
				<-release["/stream"]
				s.Write([]byte("streamed"))
				s.Close()
			}()
		})
	})
	c := dial(t, a)
	br := bufio.NewReader(c)
	waitLoopState(t, a, "syscall")
	// Except on io_uring with deferred task work (make test-uring), whose completions no
	// netpoller sees: there the loop waits inside the step also while owed (docs/io_uring.md).
	owedState := "IO wait"
	if a.uringDeferred() {
		owedState = "syscall"
	}
	for _, path := range []string{"/later", "/stream"} {
		io.WriteString(c, get(path))
		// The handler ran once the answer is owed (a loop waiting inside the step is in the
		// same state before the request as after it).
		for deadline := time.Now().Add(5 * time.Second); a.owed.Load() != 1 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		waitLoopState(t, a, owedState)
		if n := a.owed.Load(); n != 1 {
			t.Fatalf("%s: %d answers owed, want 1", path, n)
		}
		close(release[path])
		res := roundTrip(t, c, br, "", "GET")
		if got := body(t, res); res.StatusCode != 200 || got == "" {
			t.Fatalf("%s: %d %q", path, res.StatusCode, got)
		}
		if n := a.owed.Load(); n != 0 {
			t.Fatalf("%s: %d answers owed after the answer, want 0", path, n)
		}
		waitLoopState(t, a, "syscall")
	}
}

// waitLoopState waits (up to 5 s) until the goroutine of a's only loop is in the given state of
// a goroutine dump.
func waitLoopState(t *testing.T, a *App, want string) {
	t.Helper()
	// The loop's address as a traceback prints its argument (not through fmt, whose reflection
	// would make deadcode count every method the loop's fields reach as used).
	frame := "(*loop).run(0x" + strconv.FormatUint(uint64(uintptr(unsafe.Pointer(a.loops[0]))), 16)
	var state string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		dump := string(buf[:runtime.Stack(buf, true)])
		for _, g := range strings.Split(dump, "\n\n") {
			if !strings.Contains(g, frame) {
				continue
			}
			head, _, _ := strings.Cut(g, "\n") // goroutine 7 [IO wait, 2 minutes]:
			_, state, _ = strings.Cut(head, "[")
			state, _, _ = strings.Cut(strings.TrimSuffix(state, "]:"), ",")
			if state == want {
				return
			}
		}
	}
	t.Fatalf("the loop's goroutine is in state %q, want %q", state, want)
}
