package engine

import (
	"bufio"
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/loopback"
)

func runCtx(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// runIncomplete runs cfg (Count mode) against a misbehaving server and fails the test unless
// the run ends incomplete with errors of kind counted.
func runIncomplete(t *testing.T, cfg Config, kind string) *Result {
	t.Helper()
	res, err := Run(runCtx(t, 20*time.Second), cfg, Hooks{})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err %v, want ErrIncomplete", err)
	}
	if res.Errors[kind] == 0 {
		t.Fatalf("errors %v: want %s errors", res.Errors, kind)
	}
	return res
}

func TestCountExact(t *testing.T) {
	cases := []struct {
		name                 string
		count                int64
		conns, pipe, workers int
		size                 int
	}{
		{"64B uneven split", 1003, 5, 7, 2, 64},
		{"one message", 1, 3, 10, 3, 64},
		{"tiny payload", 200, 2, 3, 1, 3},
		{"16-bit length", 300, 3, 4, 2, 1000},
		{"64-bit length", 12, 2, 2, 2, 70000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			es := startEcho(t, echoOptions{})
			var starts, ends atomic.Int32
			res, err := Run(runCtx(t, 20*time.Second), Config{Protocol: WebSocket, Addr: es.Addr, Count: c.count, Connections: c.conns,
				Pipelining: c.pipe, Workers: c.workers, Size: c.size},
				Hooks{MeasureStart: func() { starts.Add(1) }, MeasureEnd: func() { ends.Add(1) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Responses != c.count || es.messages.Load() != c.count {
				t.Fatalf("client counted %d, server echoed %d; want exactly %d", res.Responses, es.messages.Load(), c.count)
			}
			if res.ErrorCount() != 0 {
				t.Fatalf("errors: %v", res.Errors)
			}
			if res.Hist.TotalCount() != c.count || res.Unit != "messages/s" || res.RPS <= 0 {
				t.Fatalf("histogram %d values, unit %q, rps %v", res.Hist.TotalCount(), res.Unit, res.RPS)
			}
			if starts.Load() != 1 || ends.Load() != 1 {
				t.Fatalf("hooks: %d starts, %d ends", starts.Load(), ends.Load())
			}
		})
	}
}

// Echoes split over several frames (gorilla with a tiny write buffer fragments them) and pings
// from the server between them: still exact, and every ping is answered.
func TestFragmentedEchoesAndPings(t *testing.T) {
	var pings, pongs atomic.Int64
	es := startEcho(t, echoOptions{writeBuf: 16, pingEvery: 25, pings: &pings, pongs: &pongs})
	res, err := Run(runCtx(t, 20*time.Second), Config{Protocol: WebSocket, Addr: es.Addr, Count: 500, Connections: 4, Pipelining: 5, Workers: 2}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Responses != 500 || res.ErrorCount() != 0 {
		t.Fatalf("%d messages, errors %v", res.Responses, res.Errors)
	}
	deadline := time.Now().Add(2 * time.Second)
	for pongs.Load() < pings.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if pongs.Load() != pings.Load() || pings.Load() < 500/25-4 {
		t.Fatalf("server got %d pongs for %d pings", pongs.Load(), pings.Load())
	}
}

func TestMismatchDetected(t *testing.T) {
	es := startEcho(t, echoOptions{corruptEvery: 40})
	// Corrupted echoes are not counted: the run is incomplete.
	res := runIncomplete(t, Config{Protocol: WebSocket, Addr: es.Addr, Count: 400, Connections: 4, Pipelining: 4, Workers: 2}, kindMismatch)
	if res.Responses >= 400 || res.Responses < 200 {
		t.Fatalf("%d messages counted", res.Responses)
	}
}

func TestServerCloseFrameMidRun(t *testing.T) {
	es := startEcho(t, echoOptions{closeAfter: 30})
	res, err := Run(runCtx(t, 20*time.Second), Config{Protocol: WebSocket, Addr: es.Addr, Duration: 300 * time.Millisecond, Connections: 3,
		Pipelining: 4, Workers: 1}, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors[kindClosed] == 0 || res.Responses == 0 {
		t.Fatalf("%d messages, errors %v: want close errors and messages from reconnections", res.Responses, res.Errors)
	}
	for k := range res.Errors {
		if k != kindClosed {
			t.Fatalf("unexpected error kind %q: %v", k, res.Errors)
		}
	}
}

func TestServerDropsTCPMidRun(t *testing.T) {
	es := startEcho(t, echoOptions{dropAfter: 17})
	runIncomplete(t, Config{Protocol: WebSocket, Addr: es.Addr, Count: 100, Connections: 2, Pipelining: 5, Workers: 1}, kindClosed)
}

// A server that upgrades and then never echoes: batches time out.
func TestTimeout(t *testing.T) {
	addr := rawWSServer(t, func(c net.Conn, br *bufio.Reader) {
		if !acceptUpgrade(c, br) {
			return
		}
		buf := make([]byte, 4096)
		for {
			n, err := br.Read(buf)
			if err != nil {
				return
			}
			if n >= 2 && buf[0] == 0x88 { // the probe's close: answer it
				_, _ = c.Write([]byte{0x88, 0})
			}
		}
	})
	start := time.Now()
	runIncomplete(t, Config{Protocol: WebSocket, Addr: addr, Count: 20, Connections: 2, Pipelining: 2, Workers: 1, Timeout: 200 * time.Millisecond},
		kindTimeout)
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("took %v", el)
	}
}

func TestCancelReturnsPartial(t *testing.T) {
	es := startEcho(t, echoOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(400*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, Config{Protocol: WebSocket, Addr: es.Addr, Duration: 30 * time.Second, Connections: 4, Pipelining: 4, Workers: 2}, Hooks{})
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("cancel took %v to return", el)
	}
	if !errors.Is(err, ErrIncomplete) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want ErrIncomplete and context.Canceled", err)
	}
	if res == nil || res.Responses == 0 || res.Elapsed <= 0 || res.Elapsed > 2*time.Second {
		t.Fatalf("partial result %+v", res)
	}
}

func TestWarmupExcludedAndLatency(t *testing.T) {
	es := startEcho(t, echoOptions{})
	var atStart, atEnd int64
	var progress []Progress
	res, err := Run(runCtx(t, 20*time.Second), Config{Protocol: WebSocket, Addr: es.Addr, Warmup: 300 * time.Millisecond, Duration: 1200 * time.Millisecond,
		Connections: 8, Pipelining: 10, Workers: 2},
		Hooks{MeasureStart: func() { atStart = es.messages.Load() }, MeasureEnd: func() { atEnd = es.messages.Load() },
			Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if atStart == 0 {
		t.Fatal("no messages during warm-up")
	}
	// What the server echoed between the hooks is what the client counted, to within the
	// batches in flight at each edge.
	inFlight := int64(2 * 8 * 10)
	if d := res.Responses - (atEnd - atStart); d > inFlight || d < -inFlight {
		t.Fatalf("client counted %d in the window, server echoed %d between the hooks", res.Responses, atEnd-atStart)
	}
	if res.Elapsed < 1100*time.Millisecond || res.Elapsed > 1500*time.Millisecond {
		t.Fatalf("window %v", res.Elapsed)
	}
	l := res.Latency
	if !(l.P50 > 0 && l.P95 >= l.P50 && l.P99 >= l.P95 && l.P999 >= l.P99 && l.Max >= l.P999 && l.Mean > 0) {
		t.Fatalf("latency %+v", l)
	}
	if len(progress) == 0 || progress[0].Phase != "measure" && progress[0].Phase != "warmup" {
		t.Fatalf("progress %+v", progress)
	}
	if res.ErrorCount() != 0 {
		t.Fatalf("errors %v", res.Errors)
	}
}

// At the end every connection is closed with a close handshake, not dropped: the server sees
// a close frame with 1000 on each connection that carried messages (and on the probe). A
// connection still waiting for its 101 when the count is reached may only be dropped.
func TestCleanCloseAtEnd(t *testing.T) {
	type report struct {
		msgs  int
		close string // close payload, or "" when dropped
	}
	reports := make(chan report, 16)
	addr := rawWSServer(t, func(c net.Conn, br *bufio.Reader) {
		if !acceptUpgrade(c, br) {
			return
		}
		cl := &WSConn{nc: c, buf: make([]byte, 4096), f: frameParser{allowMasked: true}}
		cl.data = make([]byte, br.Buffered())
		_, _ = br.Read(cl.data)
		for n := 0; ; n++ {
			op, p, err := cl.ReadMessage()
			if err != nil {
				reports <- report{msgs: n}
				return
			}
			if op == opClose {
				reports <- report{msgs: n, close: string(p)}
				_, _ = c.Write(appendFrame(nil, opClose, p, false, 0))
				return
			}
			_, _ = c.Write(appendFrame(nil, op, p, false, 0))
		}
	})
	res, err := Run(runCtx(t, 20*time.Second), Config{Protocol: WebSocket, Addr: addr, Count: 300, Connections: 3, Pipelining: 2, Workers: 1}, Hooks{})
	if err != nil || res.Responses != 300 {
		t.Fatalf("%v, %v", res, err)
	}
	clean, msgs := 0, 0
	for range 4 { // the probe and three connections
		select {
		case r := <-reports:
			msgs += r.msgs
			switch {
			case r.close == string(closePayload(closeNormal)):
				clean++
			case r.close != "" || r.msgs > 0:
				t.Fatalf("server saw close %q after %d messages, want close 1000", r.close, r.msgs)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("a connection was left open")
		}
	}
	if clean < 2 || msgs != 300 {
		t.Fatalf("%d clean closes, %d messages", clean, msgs)
	}
}

func TestNothingListening(t *testing.T) {
	addr := loopback.Unused(t).String()
	_, err := Run(runCtx(t, 10*time.Second), Config{Protocol: WebSocket, Addr: addr, Count: 1}, Hooks{})
	if !errors.Is(err, errConnect) {
		t.Fatalf("err %v, want errConnect", err)
	}
}
