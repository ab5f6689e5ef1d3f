package binding

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// wsEvent records what a test route's Close callback saw.
type wsEvent struct {
	code   int
	reason string
}

// wsApp serves /ws (Go echo; "close-me" makes the server close with 4000 "done"; "push" sends
// "pushed" from another goroutine), /small (1 KiB messages) and /echo (C++ echo).
func wsApp(t testing.TB, cfg WSConfig) (*App, chan wsEvent) { return wsAppThreads(t, cfg, 1) }

func wsAppThreads(t testing.TB, cfg WSConfig, threads int) (*App, chan wsEvent) {
	closes := make(chan wsEvent, 1000)
	h := WSHandler{
		Open: func(ws *WS) { ws.SetUserData("u") },
		Message: func(ws *WS, msg []byte, bin bool) {
			switch {
			case !bin && string(msg) == "close-me":
				ws.Close(4000, "done")
			case !bin && string(msg) == "push":
				go ws.Send([]byte("pushed"), false)
			case !bin && string(msg) == "user":
				ws.Send([]byte(ws.UserData().(string)), false)
			default:
				ws.Send(msg, bin)
			}
		},
		Close: func(ws *WS, code int, reason []byte) { closes <- wsEvent{code, string(reason)} },
	}
	a := testApp(t, Config{}, threads, func(a *App) {
		if err := a.WebSocket("/ws", h, cfg); err != nil {
			t.Fatal(err)
		}
		if err := a.WebSocket("/small", h, WSConfig{MaxMessage: 1024, IdleTimeout: 300 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		if err := a.StaticWebSocketEcho("/echo"); err != nil {
			t.Fatal(err)
		}
	})
	return a, closes
}

const sampleKey = "dGhlIHNhbXBsZSBub25jZQ==" // RFC 6455 1.3

func upgradeReq(path string, extra ...string) string {
	h := map[string]string{"Host": "x", "Upgrade": "websocket", "Connection": "Upgrade",
		"Sec-WebSocket-Key": sampleKey, "Sec-WebSocket-Version": "13"}
	var order = []string{"Host", "Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version"}
	for i := 0; i+1 < len(extra); i += 2 {
		if _, ok := h[extra[i]]; !ok {
			order = append(order, extra[i])
		}
		h[extra[i]] = extra[i+1]
	}
	var b strings.Builder
	b.WriteString("GET " + path + " HTTP/1.1\r\n")
	for _, k := range order {
		if v := h[k]; v != "-" {
			b.WriteString(k + ": " + v + "\r\n")
		}
	}
	b.WriteString("\r\n")
	return b.String()
}

// wsDial upgrades a raw connection on path.
func wsDial(t testing.TB, a *App, path string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c := dial(t, a)
	br := bufio.NewReader(c)
	res := roundTrip(t, c, br, upgradeReq(path), "GET")
	if res.StatusCode != 101 || res.Header.Get("Sec-WebSocket-Accept") != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" ||
		!strings.EqualFold(res.Header.Get("Upgrade"), "websocket") {
		t.Fatalf("upgrade: %d %v", res.StatusCode, res.Header)
	}
	return c, br
}

// frame builds a client frame; b0 is FIN|RSV|opcode, mask=false sends it unmasked.
func frame(b0 byte, payload []byte, mask bool) []byte {
	out := []byte{b0}
	mb := byte(0)
	if mask {
		mb = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		out = append(out, mb|byte(n))
	case n < 65536:
		out = append(out, mb|126, byte(n>>8), byte(n))
	default:
		out = append(out, mb|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	if !mask {
		return append(out, payload...)
	}
	key := []byte{0x12, 0x34, 0x56, 0x78}
	out = append(out, key...)
	for i, c := range payload {
		out = append(out, c^key[i&3])
	}
	return out
}

func fin(op byte) byte { return 0x80 | op }

func closePayload(code int, reason string) []byte {
	return append([]byte{byte(code >> 8), byte(code)}, reason...)
}

// readFrame reads one server frame (servers never mask).
func readFrame(t testing.TB, br *bufio.Reader) (byte, []byte) {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	if h[1]&0x80 != 0 || h[0]&0x70 != 0 || h[0]&0x80 == 0 {
		t.Fatalf("bad server frame header % x", h)
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var x [2]byte
		io.ReadFull(br, x[:])
		n = uint64(binary.BigEndian.Uint16(x[:]))
	case 127:
		var x [8]byte
		io.ReadFull(br, x[:])
		n = binary.BigEndian.Uint64(x[:])
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(br, p); err != nil {
		t.Fatalf("reading a payload: %v", err)
	}
	return h[0] & 0x0f, p
}

func expectFrame(t testing.TB, br *bufio.Reader, op byte, payload []byte) {
	t.Helper()
	gop, got := readFrame(t, br)
	if gop != op || !bytes.Equal(got, payload) {
		t.Fatalf("got opcode %d %q (%d bytes), want %d %q (%d bytes)", gop, trunc(got), len(got), op, trunc(payload), len(payload))
	}
}

func trunc(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
}

// expectClose reads the server's close frame with code, then the end of the connection.
func expectClose(t testing.TB, c net.Conn, br *bufio.Reader, code int) {
	t.Helper()
	op, p := readFrame(t, br)
	if op != 8 || len(p) < 2 || int(binary.BigEndian.Uint16(p)) != code {
		t.Fatalf("want close %d, got opcode %d % x", code, op, trunc(p))
	}
	expectClosed(t, c, br)
}

func expectEvent(t testing.TB, ch chan wsEvent, code int, reason string) {
	t.Helper()
	select {
	case e := <-ch:
		if e.code != code || e.reason != reason {
			t.Fatalf("Close callback got %d %q, want %d %q", e.code, e.reason, code, reason)
		}
	case <-time.After(3 * time.Second):
		t.Fatalf("no Close callback (want %d)", code)
	}
}

func TestWSHandshake(t *testing.T) {
	a, _ := wsApp(t, WSConfig{})
	wsDial(t, a, "/ws")
	wsDial(t, a, "/echo")
	// Accepted variants: token lists and case.
	for _, extra := range [][]string{
		{"Connection", "keep-alive, Upgrade"},
		{"Upgrade", "WebSocket"},
		{"Connection", "upgrade"},
	} {
		c := dial(t, a)
		br := bufio.NewReader(c)
		if res := roundTrip(t, c, br, upgradeReq("/ws", extra...), "GET"); res.StatusCode != 101 {
			t.Errorf("%v: status %d", extra, res.StatusCode)
		}
	}
	cases := []struct {
		name string
		raw  string
		want int
	}{
		{"version 8", upgradeReq("/ws", "Sec-WebSocket-Version", "8"), 426},
		{"no version", upgradeReq("/ws", "Sec-WebSocket-Version", "-"), 426},
		{"no key", upgradeReq("/ws", "Sec-WebSocket-Key", "-"), 400},
		{"short key", upgradeReq("/ws", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ="), 400},
		{"15-byte key", upgradeReq("/ws", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25j"), 400},
		{"non-canonical key", upgradeReq("/ws", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZR=="), 400},
		{"bad key char", upgradeReq("/ws", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25j*Q=="), 400},
		{"no upgrade", upgradeReq("/ws", "Upgrade", "-"), 400},
		{"upgrade h2c", upgradeReq("/ws", "Upgrade", "h2c"), 400},
		{"connection keep-alive", upgradeReq("/ws", "Connection", "keep-alive"), 400},
		{"plain GET", get("/ws"), 400},
		{"HTTP/1.0", strings.Replace(upgradeReq("/ws"), "HTTP/1.1", "HTTP/1.0", 1), 400},
		{"HEAD", strings.Replace(upgradeReq("/ws"), "GET", "HEAD", 1), 400},
		{"body", upgradeReq("/ws", "Content-Length", "2") + "hi", 400},
	}
	for _, tc := range cases {
		c := dial(t, a)
		br := bufio.NewReader(c)
		method := "GET"
		if strings.HasPrefix(tc.raw, "HEAD") {
			method = "HEAD"
		}
		res := roundTrip(t, c, br, tc.raw, method)
		body(t, res)
		if res.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, res.StatusCode, tc.want)
		}
		if tc.want == 426 && res.Header.Get("Sec-WebSocket-Version") != "13" {
			t.Errorf("%s: 426 without Sec-WebSocket-Version: 13: %v", tc.name, res.Header)
		}
	}
	// The connection still serves HTTP on the app afterwards.
	c := dial(t, a)
	if res := roundTrip(t, c, bufio.NewReader(c), get("/"), "GET"); res.StatusCode != 200 {
		t.Fatal(res.StatusCode)
	}
}

// stream is a conversation exercising every frame shape; want is the server's answer to it.
func wsStream() (in, want []byte) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 70000/16) // 64-bit length
	mid := bytes.Repeat([]byte{7}, 300)                       // 16-bit length
	in = append(in, frame(fin(1), []byte("hello"), true)...)
	in = append(in, frame(fin(9), []byte("p1"), true)...)
	in = append(in, frame(2, []byte{1, 2}, true)...) // fragmented binary, pings and a pong inside
	in = append(in, frame(fin(9), []byte("p2"), true)...)
	in = append(in, frame(0, []byte{3}, true)...)
	in = append(in, frame(fin(10), []byte("unsolicited"), true)...)
	in = append(in, frame(0, nil, true)...)
	in = append(in, frame(fin(0), []byte{4, 5}, true)...)
	in = append(in, frame(1, []byte("h\xc3"), true)...) // a code point split across fragments
	in = append(in, frame(fin(0), []byte("\xa9llo"), true)...)
	in = append(in, frame(fin(2), mid, true)...)
	in = append(in, frame(fin(2), big, true)...)
	in = append(in, frame(fin(1), nil, true)...)
	want = append(want, 0x81, 5)
	want = append(want, "hello"...)
	want = append(want, 0x8a, 2, 'p', '1', 0x8a, 2, 'p', '2', 0x82, 5, 1, 2, 3, 4, 5)
	want = append(want, 0x81, 6)
	want = append(want, "h\xc3\xa9llo"...)
	want = append(want, 0x82, 126, 1, 44)
	want = append(want, mid...)
	want = append(want, 0x82, 127)
	want = binary.BigEndian.AppendUint64(want, uint64(len(big)))
	want = append(want, big...)
	want = append(want, 0x81, 0)
	return
}

// sameFrames compares server frame streams: data frames in order, control frames in order
// (a pong may overtake the echo of an earlier message that its handler answers a step later).
func sameFrames(a, b []byte) bool {
	split := func(p []byte) (data, ctl []string) {
		for len(p) >= 2 {
			n, h := uint64(p[1]&0x7f), 2
			switch n {
			case 126:
				n, h = uint64(binary.BigEndian.Uint16(p[2:])), 4
			case 127:
				n, h = binary.BigEndian.Uint64(p[2:]), 10
			}
			f := string(p[:h+int(n)])
			if p[0]&0x08 != 0 {
				ctl = append(ctl, f)
			} else {
				data = append(data, f)
			}
			p = p[h+int(n):]
		}
		return
	}
	ad, ac := split(a)
	bd, bc := split(b)
	return fmt.Sprint(ad) == fmt.Sprint(bd) && fmt.Sprint(ac) == fmt.Sprint(bc)
}

func readAll(t testing.TB, c net.Conn, br *bufio.Reader, n int) []byte {
	t.Helper()
	got := make([]byte, n)
	if _, err := io.ReadFull(br, got); err != nil {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	return got
}

// The same bytes give the same answers however they are split: at every boundary of the
// conversation's head (two writes each), and one byte per write throughout.
func TestWSSplitEveryByte(t *testing.T) {
	a, _ := wsApp(t, WSConfig{})
	in, want := wsStream()
	for _, path := range []string{"/ws", "/echo"} {
		for k := 0; k < 120; k++ {
			c, br := wsDial(t, a, path)
			c.(*net.TCPConn).SetNoDelay(true)
			c.Write(in[:k])
			time.Sleep(50 * time.Microsecond)
			c.Write(in[k:])
			if got := readAll(t, c, br, len(want)); !sameFrames(got, want) {
				t.Fatalf("%s split at %d: answers differ", path, k)
			}
			c.Close()
		}
	}
	c, br := wsDial(t, a, "/ws")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 400; i++ { // the head one byte at a time, then the rest
			c.Write(in[i : i+1])
			time.Sleep(20 * time.Microsecond)
		}
		c.Write(in[400:])
	}()
	if got := readAll(t, c, br, len(want)); !sameFrames(got, want) {
		t.Fatal("byte-at-a-time answers differ")
	}
	<-done
}

func TestWSPingCloseFromClient(t *testing.T) {
	a, closes := wsApp(t, WSConfig{})
	c, br := wsDial(t, a, "/ws")
	c.Write(frame(fin(9), []byte("are you there"), true))
	expectFrame(t, br, 10, []byte("are you there"))
	c.Write(frame(fin(1), []byte("user"), true))
	expectFrame(t, br, 1, []byte("u"))
	c.Write(frame(fin(8), closePayload(1000, "bye"), true))
	expectClose(t, c, br, 1000)
	expectEvent(t, closes, 1000, "bye")

	// An empty close is answered with an empty close; the callback sees 1005.
	c, br = wsDial(t, a, "/ws")
	c.Write(frame(fin(8), nil, true))
	if op, p := readFrame(t, br); op != 8 || len(p) != 0 {
		t.Fatalf("got %d % x", op, p)
	}
	expectClosed(t, c, br)
	expectEvent(t, closes, 1005, "")

	// The C++ echo route closes the same way.
	c, br = wsDial(t, a, "/echo")
	c.Write(frame(fin(9), []byte("x"), true))
	expectFrame(t, br, 10, []byte("x"))
	c.Write(frame(fin(8), closePayload(4001, ""), true))
	expectClose(t, c, br, 4001)
}

func TestWSCloseFromServerAndPush(t *testing.T) {
	a, closes := wsApp(t, WSConfig{})
	c, br := wsDial(t, a, "/ws")
	c.Write(frame(fin(1), []byte("push"), true))
	expectFrame(t, br, 1, []byte("pushed"))
	c.Write(frame(fin(1), []byte("close-me"), true))
	op, p := readFrame(t, br)
	if op != 8 || binary.BigEndian.Uint16(p) != 4000 || string(p[2:]) != "done" {
		t.Fatalf("got %d %q", op, p)
	}
	c.Write(frame(fin(1), []byte("ignored after close"), true))
	c.Write(frame(fin(8), closePayload(4000, ""), true))
	expectClosed(t, c, br)
	expectEvent(t, closes, 4000, "")

	// A client that never answers our close is closed after a short wait, not the idle timeout.
	c, br = wsDial(t, a, "/ws")
	c.Write(frame(fin(1), []byte("close-me"), true))
	start := time.Now()
	if op, _ := readFrame(t, br); op != 8 {
		t.Fatalf("got opcode %d", op)
	}
	expectClosed(t, c, br)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("closed after %v", d)
	}
	expectEvent(t, closes, 4000, "")

	// A client that vanishes: the callback still fires, with 1006.
	c, _ = wsDial(t, a, "/ws")
	c.Close()
	expectEvent(t, closes, 1006, "")
}

func TestWSProtocolErrors(t *testing.T) {
	a, closes := wsApp(t, WSConfig{})
	big := make([]byte, 2000)
	cases := []struct {
		name string
		path string
		in   []byte
		code int
	}{
		{"unmasked", "/ws", frame(fin(2), []byte{1}, false), 1002},
		{"unmasked echo", "/echo", frame(fin(2), []byte{1}, false), 1002},
		{"rsv1", "/ws", frame(0xc2, []byte{1}, true), 1002},
		{"opcode 3", "/ws", frame(fin(3), nil, true), 1002},
		{"opcode 11", "/ws", frame(fin(11), nil, true), 1002},
		{"fragmented ping", "/ws", frame(9, nil, true), 1002},
		{"long ping", "/ws", frame(fin(9), make([]byte, 126), true), 1002},
		{"continuation first", "/ws", frame(fin(0), []byte{1}, true), 1002},
		{"new message inside one", "/ws", append(frame(1, []byte("a"), true), frame(fin(1), []byte("b"), true)...), 1002},
		{"non-minimal 16", "/ws", []byte{0x82, 0x80 | 126, 0, 5, 1, 2, 3, 4, 1, 2, 3, 4, 5}, 1002},
		{"non-minimal 64", "/ws", []byte{0x82, 0x80 | 127, 0, 0, 0, 0, 0, 0, 1, 0, 1, 2, 3, 4}, 1002},
		{"top bit", "/ws", []byte{0x82, 0x80 | 127, 0x80, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4}, 1002},
		{"close code 1005", "/ws", frame(fin(8), closePayload(1005, ""), true), 1002},
		{"close code 999", "/ws", frame(fin(8), closePayload(999, ""), true), 1002},
		{"close 1 byte", "/ws", frame(fin(8), []byte{3}, true), 1002},
		{"bad utf-8", "/ws", frame(fin(1), []byte("a\xff"), true), 1007},
		{"bad utf-8 echo", "/echo", frame(fin(1), []byte("\xed\xa0\x80"), true), 1007},
		{"truncated utf-8 across fragments", "/ws", append(frame(1, []byte("a\xe2\x82"), true), frame(fin(0), []byte("x"), true)...), 1007},
		{"bad utf-8 close reason", "/ws", frame(fin(8), closePayload(1000, "\xc0\x80"), true), 1007},
		{"oversize", "/small", frame(fin(2), big, true), 1009},
		{"oversize fragments", "/small", append(frame(2, big[:1000], true), frame(fin(0), big[:100], true)...), 1009},
	}
	for _, tc := range cases {
		c, br := wsDial(t, a, tc.path)
		c.Write(tc.in)
		op, p := readFrame(t, br)
		if op != 8 || len(p) < 2 || int(binary.BigEndian.Uint16(p)) != tc.code {
			t.Fatalf("%s: want close %d, got opcode %d % x", tc.name, tc.code, op, trunc(p))
		}
		expectClosed(t, c, br)
		if tc.path != "/echo" {
			expectEvent(t, closes, tc.code, "")
		}
	}
	// A message of exactly the limit passes.
	c, br := wsDial(t, a, "/small")
	c.Write(frame(fin(2), big[:1024], true))
	expectFrame(t, br, 2, big[:1024])
}

func TestWSIdleTimeout(t *testing.T) {
	a, closes := wsApp(t, WSConfig{})
	c, br := wsDial(t, a, "/small") // 300 ms idle
	start := time.Now()
	expectClosed(t, c, br)
	if d := time.Since(start); d < 250*time.Millisecond || d > 3*time.Second {
		t.Fatalf("closed after %v", d)
	}
	expectEvent(t, closes, 1006, "")
}

// Shutdown says going away (1001) to open WebSockets.
func TestWSShutdown(t *testing.T) {
	a, closes := wsApp(t, WSConfig{})
	c, br := wsDial(t, a, "/ws")
	done := make(chan error)
	go func() { done <- a.Shutdown(t.Context()) }()
	expectClose(t, c, br, 1001)
	expectEvent(t, closes, 1001, "")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := (&WS{l: a.loops[0], id: 1, rt: &wsRoute{}}).Send([]byte("x"), true); err != ErrClosed {
		t.Fatalf("Send after shutdown: %v", err)
	}
}

// 100 connections (gorilla/websocket clients) echo concurrently, on the Go and the C++ route.
func TestWSEchoUnderLoad(t *testing.T) {
	for _, threads := range []int{1, 2} {
		a, _ := wsAppThreads(t, WSConfig{}, threads)
		for _, path := range []string{"/ws", "/echo"} {
			for _, err := range concurrently(100, func(i int) error {
				d := websocket.Dialer{HandshakeTimeout: 5 * time.Second}
				c, _, err := d.Dial(fmt.Sprintf("ws://%s%s", addr(a), path), http.Header{})
				if err != nil {
					return err
				}
				defer c.Close()
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				for j := 0; j < 200; j++ {
					msg := []byte(fmt.Sprintf("%d-%d-%s", i, j, strings.Repeat("x", j)))
					op := websocket.BinaryMessage
					if j%3 == 0 {
						op = websocket.TextMessage
					}
					if err := c.WriteMessage(op, msg); err != nil {
						return err
					}
					gop, got, err := c.ReadMessage()
					if err != nil || gop != op || !bytes.Equal(got, msg) {
						return fmt.Errorf("conn %d msg %d: %v %d %q", i, j, err, gop, got)
					}
				}
				c.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(1000, ""))
				if _, _, err := c.ReadMessage(); !websocket.IsCloseError(err, 1000) {
					return fmt.Errorf("close: %v", err)
				}
				return nil
			}) {
				t.Fatalf("%s: %v", path, err)
			}
		}
	}
}

// TestWSBackpressure: a producer floods a client that does not read. Send refuses with
// ErrBackpressure once the backlog reaches MaxBackpressure (nothing is queued then); Drain fires
// once the client reads again, the producer resumes, and the client gets every accepted message
// exactly once, in order.
func TestWSBackpressure(t *testing.T) {
	const limit, size, total = 256 << 10, 64 << 10, 400
	refused := make(chan int64, 1) // the BufferedAmount at the first refusal
	drained := make(chan int64, 1) // the BufferedAmount when Drain ran
	producerErr := make(chan error, 1)
	var drains atomic.Int32
	h := WSHandler{
		Message: func(ws *WS, _ []byte, _ bool) {
			go func() { producerErr <- produce(ws, size, total, refused, drained) }()
		},
		Drain: func(ws *WS) {
			drains.Add(1)
			select {
			case drained <- ws.BufferedAmount():
			default:
			}
		},
	}
	a := testApp(t, Config{}, 1, func(a *App) {
		if err := a.WebSocket("/flood", h, WSConfig{MaxBackpressure: limit}); err != nil {
			t.Fatal(err)
		}
	})
	c, br := wsDial(t, a, "/flood")
	c.Write(frame(fin(1), []byte("go"), true))
	select {
	case got := <-refused:
		if got < limit {
			t.Fatalf("refused at a backlog of %d, under the limit %d", got, limit)
		}
	case err := <-producerErr:
		t.Fatalf("producer ended before any backpressure: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no ErrBackpressure within 10 s of a client that does not read")
	}
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for seq := 0; seq < total; seq++ {
		op, p := readFrame(t, br)
		if op != 2 || len(p) != size || int(binary.BigEndian.Uint32(p)) != seq {
			t.Fatalf("message %d: opcode %d, %d bytes, seq %d", seq, op, len(p), binary.BigEndian.Uint32(p))
		}
	}
	expectFrame(t, br, 1, []byte("end"))
	if err := <-producerErr; err != nil {
		t.Fatal(err)
	}
	if drains.Load() == 0 {
		t.Fatal("Drain never ran")
	}
}

// produce sends total messages of size bytes, each starting with its sequence number, then "end".
// On ErrBackpressure it reports the backlog once and waits for a drain, then retries the message.
func produce(ws *WS, size, total int, refused, drained chan int64) error {
	msg := make([]byte, size)
	first := true
	for seq := 0; seq <= total; {
		var err error
		if seq == total {
			err = ws.Send([]byte("end"), false)
		} else {
			binary.BigEndian.PutUint32(msg, uint32(seq))
			err = ws.Send(msg, true)
		}
		switch err {
		case nil:
			seq++
		case ErrBackpressure:
			if first {
				first = false
				refused <- ws.BufferedAmount()
			}
			select {
			case left := <-drained:
				if left >= int64(size)*4 {
					return fmt.Errorf("Drain ran with %d bytes still buffered", left)
				}
			case <-time.After(20 * time.Second):
				return fmt.Errorf("no Drain within 20 s of ErrBackpressure (backlog %d)", ws.BufferedAmount())
			}
		default:
			return err
		}
	}
	return nil
}

// The upgrade request's path, query and headers stay readable on the socket, from Open on.
func TestWSUpgradeRequest(t *testing.T) {
	h := WSHandler{
		Open: func(ws *WS) {
			ws.SetUserData(ws.Path() + "|" + string(ws.Query("room")) + "|" + fmt.Sprint(ws.Query("none") == nil) +
				"|" + ws.Header("x-token") + "|" + ws.Header("HOST") + "|" + ws.Header("x-absent") + "|" + ws.Header("x"))
		},
		Message: func(ws *WS, msg []byte, bin bool) {
			ws.Send([]byte(ws.UserData().(string)+"|"+ws.Path()), false)
		},
	}
	a := testApp(t, Config{}, 1, func(a *App) {
		if err := a.WebSocket("/chat/:room", h, WSConfig{}); err != nil {
			t.Fatal(err)
		}
	})
	c := dial(t, a)
	br := bufio.NewReader(c)
	res := roundTrip(t, c, br, upgradeReq("/chat/x?a=1&room=7&b", "X-Token", "  s3cret\t", "Host", "h.example"), "GET")
	if res.StatusCode != 101 {
		t.Fatalf("upgrade: %d", res.StatusCode)
	}
	c.Write(frame(fin(1), []byte("?"), true))
	expectFrame(t, br, 1, []byte("/chat/x|7|true|s3cret|h.example|||/chat/x"))
}

// Sends from another goroutine keep their order while the loop keeps dispatching callbacks (whose
// sends go into the batch): a batch must not overtake sends posted before it.
func TestWSSendOrderAcrossDispatches(t *testing.T) {
	const total = 20000
	h := WSHandler{
		Message: func(ws *WS, msg []byte, bin bool) {
			if string(msg) == "start" {
				go func() {
					var b [4]byte
					for i := 0; i < total; i++ {
						binary.BigEndian.PutUint32(b[:], uint32(i))
						for ws.Send(b[:], true) == ErrBackpressure {
							time.Sleep(time.Millisecond)
						}
					}
				}()
				return
			}
			ws.Send(msg, false) // an echo from the callback, interleaved with the producer's
		},
	}
	a := testApp(t, Config{}, 1, func(a *App) {
		if err := a.WebSocket("/order", h, WSConfig{}); err != nil {
			t.Fatal(err)
		}
	})
	c, br := wsDial(t, a, "/order")
	c.Write(frame(fin(1), []byte("start"), true))
	stop := make(chan struct{})
	defer close(stop)
	go func() { // keep the loop dispatching
		for {
			select {
			case <-stop:
				return
			default:
				c.Write(frame(fin(1), []byte("tick"), true))
				time.Sleep(20 * time.Microsecond)
			}
		}
	}()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	for next := 0; next < total; {
		op, p := readFrame(t, br)
		if op == 1 {
			continue // an echoed tick
		}
		if got := int(binary.BigEndian.Uint32(p)); got != next {
			t.Fatalf("producer's message %d arrived where %d was due", got, next)
		}
		next++
	}
}
