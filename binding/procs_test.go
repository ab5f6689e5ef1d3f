package binding

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"runtime"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"
)

func TestListenAddsAProcessorPerLoop(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	a := New(Config{})
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
// through its waits in C: the Go runtime's execution trace shows each of the loop's cgo calls
// ending with the P it started with, not taken by sysmon (a syscall that ends "blocked", the
// goroutine runnable instead of running). Without a spare P per loop, or without the yields
// of br_batch.yield, nearly every one of them ends blocked.
func TestAWaitingLoopKeepsItsProcessor(t *testing.T) {
	// One P for Go code, as in a server pinned to one CPU.
	prev := runtime.GOMAXPROCS(1)
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	a := testApp(t, Config{}, 1, nil)
	c := dial(t, a)
	defer c.Close()
	br := bufio.NewReader(c)
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	const requests = 400
	for i := 0; i < requests; i++ {
		time.Sleep(time.Millisecond) // the loop goes idle: each request wakes it up
		if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			trace.Stop()
			t.Fatal(err)
		}
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			trace.Stop()
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	trace.Stop()
	kept, lost := syscallEnds(t, &buf, "binding.(*loop).run")
	t.Logf("the loop's cgo calls over %d requests: %d ended with their P, %d had it taken", requests, kept, lost)
	if kept+lost < requests*9/10 {
		t.Fatalf("the trace shows %d cgo calls of the loop for %d requests", kept+lost, requests)
	}
	if lost > requests/10 {
		t.Errorf("%d of the loop's %d cgo calls lost their P (want at most %d)", lost, kept+lost, requests/10)
	}
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
