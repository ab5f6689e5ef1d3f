package binding

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/trace"
	"strconv"
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
// through its waits: the Go runtime's execution trace shows each of the loop's cgo calls ending
// with the P it started with, not taken by sysmon (a syscall that ends "blocked", the goroutine
// runnable instead of running). By default the loop waits in raw system calls (wait.go) and
// steps in direct calls (direct.go), neither of which the runtime takes a P from, so the trace
// shows next to no cgo calls of the loop at all; with Config.OwnProcessor it waits in C with a
// spare P.
// With Config.CgoWait, on the one P of a server pinned to one CPU, it has the P taken on nearly
// every wake-up: the test's detector sees that too. (Own P without the yields of
// br_batch.yield: 53-91 of 400 taken; without the spare P, 399 of 400.) The client is another
// process, so the server's one P serves only the server.
func TestAWaitingLoopKeepsItsProcessor(t *testing.T) {
	const requests = 400
	type bounds struct{ min, max int }
	for _, tc := range []struct {
		name        string
		cfg         Config
		calls, lost bounds // the loop's cgo calls, and those that lost their P
	}{
		// Its steps are direct calls (direct.go): the loop is never in a cgo call at all.
		{"raw wait", Config{}, bounds{0, requests / 10}, bounds{0, requests / 10}},
		{"OwnProcessor", Config{OwnProcessor: true}, bounds{requests * 9 / 10, 4 * requests}, bounds{0, requests / 10}},
		{"CgoWait", Config{CgoWait: true}, bounds{requests * 9 / 10, 4 * requests}, bounds{requests / 2, requests}},
	} {
		kept, lost := pacedLoopSyscalls(t, tc.cfg, requests)
		t.Logf("%s: the loop's cgo calls over %d requests: %d ended with their P, %d had it taken", tc.name, requests, kept, lost)
		if calls := kept + lost; calls < tc.calls.min || calls > tc.calls.max {
			t.Errorf("%s: the trace shows %d cgo calls of the loop for %d requests, want %d to %d", tc.name, calls, requests, tc.calls.min, tc.calls.max)
		}
		if lost < tc.lost.min || lost > tc.lost.max {
			t.Errorf("%s: %d of the loop's %d cgo calls lost their P, want %d to %d", tc.name, lost, kept+lost, tc.lost.min, tc.lost.max)
		}
	}
}

// pacedLoopSyscalls serves n requests one at a time, a millisecond apart, from an app with one
// loop and one P (as in a server pinned to one CPU), under the execution tracer. The requests
// come from pacedClient in a child process.
func pacedLoopSyscalls(t *testing.T, cfg Config, n int) (kept, lost int) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	a := New(cfg)
	a.Get("/", func(w *Response, r *Request) { w.WriteString("hi") })
	if err := a.Listen("127.0.0.1:0", 1); err != nil {
		t.Fatal(err)
	}
	defer a.Shutdown(t.Context())
	client := exec.Command(os.Args[0], "-test.run=^TestPacedClient$")
	client.Env = append(os.Environ(), "BINDRACE_PACED_CLIENT="+strconv.Itoa(a.Port())+" "+strconv.Itoa(n))
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	out, err := client.CombinedOutput()
	trace.Stop()
	if err != nil {
		t.Fatalf("paced client: %v\n%s", err, out)
	}
	kept, lost = syscallEnds(t, &buf, "binding.(*loop).run")
	return kept, lost
}

// TestPacedClient is pacedLoopSyscalls' client when its child process runs it; otherwise it
// does nothing.
func TestPacedClient(t *testing.T) {
	port, n, ok := strings.Cut(os.Getenv("BINDRACE_PACED_CLIENT"), " ")
	if !ok {
		return
	}
	count, _ := strconv.Atoi(n)
	c, err := net.Dial("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	for i := 0; i < count; i++ {
		time.Sleep(time.Millisecond) // the loop goes idle: each request wakes it up
		res := roundTrip(t, c, br, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "GET")
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
}

// While a loop waits in raw system calls it keeps the process's one P, so other goroutines
// run when it yields (every rawYieldBatches batches), when sysmon preempts it (its signal ends
// the raw wait) or when it goes idle (a raw wait of rawWaitMs saw nothing): every 10 ms or so,
// as beside a goroutine that computes. A goroutine ticking every millisecond beside a loop that
// serves an in-process client on one P must still tick (measured: 38 times in the half second,
// the client 35 requests); starved, it would tick at most a few times.
func TestRawWaitLetsOtherGoroutinesRun(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	a := testApp(t, Config{}, 1, nil)
	c := dial(t, a)
	br := bufio.NewReader(c)
	ticks := make(chan int)
	stop := make(chan struct{})
	go func() {
		n := 0
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				n++
			case <-stop:
				ticks <- n
				return
			}
		}
	}()
	requests := 0
	for end := time.Now().Add(500 * time.Millisecond); time.Now().Before(end); requests++ {
		res := roundTrip(t, c, br, get("/"), "GET")
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	close(stop)
	n := <-ticks
	t.Logf("%d requests; the other goroutine ticked %d times in 500 ms", requests, n)
	if n < 15 {
		t.Errorf("the other goroutine ticked %d times in 500 ms beside a busy loop on one P, want at least 15", n)
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
