package binding

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"
)

func TestListenAddsAProcessorPerLoop(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	a := New(Config{OwnProcessor: true})
	a.Get("/", func(w *Response, r *Request) {})
	if err := a.Listen("127.0.0.1:0", 2); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != before+2 {
		t.Errorf("GOMAXPROCS while 2 loops run = %d, want %d", got, before+2)
	}
	if err := a.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS after Shutdown = %d, want %d", got, before)
	}
}

// A loop that serves one request at a time, each arriving at an idle loop, keeps its processor
// through its waits in C with Config.OwnProcessor: the Go runtime's execution trace shows each of
// the loop's cgo calls ending with the P it started with, not taken by sysmon (a syscall that
// ends "blocked", the goroutine runnable instead of running). The default loop, on the one P of
// a server pinned to one CPU, has it taken on nearly every wake-up: the test's detector sees
// that too. (Without the yields of br_batch.yield, 53-91 of 400 were taken; without the spare
// P, 399 of 400.)
func TestAWaitingLoopKeepsItsProcessor(t *testing.T) {
	const requests = 400
	for _, tc := range []struct {
		own      bool
		min, max int // calls that lost their P
	}{{own: true, min: 0, max: requests / 10}, {own: false, min: requests / 2, max: requests}} {
		kept, lost := pacedLoopSyscalls(t, Config{OwnProcessor: tc.own}, requests)
		t.Logf("OwnProcessor %v: the loop's cgo calls over %d requests: %d ended with their P, %d had it taken", tc.own, requests, kept, lost)
		if kept+lost < requests*9/10 {
			t.Fatalf("the trace shows %d cgo calls of the loop for %d requests", kept+lost, requests)
		}
		if lost < tc.min || lost > tc.max {
			t.Errorf("OwnProcessor %v: %d of the loop's %d cgo calls lost their P, want %d to %d", tc.own, lost, kept+lost, tc.min, tc.max)
		}
	}
}

// pacedLoopSyscalls serves n requests one at a time, a millisecond apart, from an app with one
// loop and one P for Go code (as in a server pinned to one CPU), under the execution tracer.
func pacedLoopSyscalls(t *testing.T, cfg Config, n int) (kept, lost int) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	a := New(cfg)
	a.Get("/", func(w *Response, r *Request) { w.WriteString("hi") })
	if err := a.Listen("127.0.0.1:0", 1); err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown(t.Context())
	c := dial(t, a)
	defer c.Close()
	br := bufio.NewReader(c)
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		time.Sleep(time.Millisecond) // the loop goes idle: each request wakes it up
		res := roundTrip(t, c, br, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET")
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	trace.Stop()
	return syscallEnds(t, &buf, "binding.(*loop).run")
}

// syscallEnds counts the syscalls (cgo calls included) of the goroutines whose stack has fn
// that ended with their P (kept) and that ended blocked, their P taken (lost).
func syscallEnds(t *testing.T, r *bytes.Buffer, fn string) (kept, lost int) {
	t.Helper()
	tr, err := xtrace.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	loopG := map[xtrace.GoID]bool{}
	for {
		ev, err := tr.ReadEvent()
		if err != nil {
			break
		}
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			continue
		}
		g := st.Resource.Goroutine()
		from, to := st.Goroutine()
		if to == xtrace.GoSyscall && !loopG[g] {
			for f := range st.Stack.Frames() {
				if strings.HasSuffix(f.Func, fn) {
					loopG[g] = true
				}
			}
		}
		if from != xtrace.GoSyscall || !loopG[g] {
			continue
		}
		switch to {
		case xtrace.GoRunning:
			kept++
		case xtrace.GoRunnable:
			lost++
		}
	}
	return kept, lost
}
