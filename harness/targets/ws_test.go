package targets

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/bindrace/bindrace/harness/internal/wstest"
	"github.com/bindrace/bindrace/harness/scenario"
)

// wsTargets are the targets serving ws-echo today (the binding's WebSocket support comes later).
var wsTargets = []string{"fasthttp", "nethttp", "uws"}

// serveWST serves target name for a WebSocket test as a fresh process and returns its address.
// Without the uws target's node_modules the test is skipped, naming the missing directory.
func serveWST(t *testing.T, name string) string {
	t.Helper()
	if name == "uws" {
		_, s := startUWS(t, StartOptions{})
		return s.Addr()
	}
	tg, err := Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	return startT(t, tg, StartOptions{}).Addr()
}

// forEachWSTarget runs test as a subtest per target in wsTargets, each served fresh.
func forEachWSTarget(t *testing.T, test func(t *testing.T, name, addr string)) {
	for _, name := range wsTargets {
		t.Run(name, func(t *testing.T) { test(t, name, serveWST(t, name)) })
	}
}

func wsScenario(t *testing.T) scenario.Scenario {
	t.Helper()
	sc, err := scenario.ByName("ws-echo")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// dialWS opens a client connection to addr's ws-echo endpoint; writeBuf > 0 sets gorilla's
// write buffer, which is the frame size it fragments larger messages into.
func dialWS(t *testing.T, addr string, writeBuf int) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 5 * time.Second, WriteBufferSize: writeBuf}
	c, resp, err := d.Dial("ws://"+addr+scenario.WSPath, nil)
	if err != nil {
		if resp != nil {
			t.Fatalf("upgrade: HTTP %s: %v", resp.Status, err)
		}
		t.Fatalf("upgrade: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	c.SetWriteDeadline(time.Now().Add(20 * time.Second))
	return c
}

// expectEcho sends msg as op and wants it back unchanged, with the same opcode.
func expectEcho(t *testing.T, c *websocket.Conn, op int, msg []byte) {
	t.Helper()
	if err := c.WriteMessage(op, msg); err != nil {
		t.Fatalf("send %s: %v", wsOpName(op), err)
	}
	gotOp, got, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("no echo of %s %s: %v", wsOpName(op), wsShow(op, msg), err)
	}
	if gotOp != op {
		t.Fatalf("sent %s, echo is %s", wsOpName(op), wsOpName(gotOp))
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("echo %s, want %s", wsShow(gotOp, got), wsShow(op, msg))
	}
}

// expectClose reads until the server's close frame and wants its status to be code.
func expectClose(t *testing.T, c *websocket.Conn, code int) {
	t.Helper()
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) {
			t.Fatalf("want close %d, got %v", code, err)
		}
		if ce.Code != code {
			t.Fatalf("want close %d, got close %d %q", code, ce.Code, ce.Text)
		}
		return
	}
}

// TestWSEchoVerify: every peer target passes the ws-echo verification, also through the
// scenario list a `bindrace verify` run uses by default (every name).
func TestWSEchoVerify(t *testing.T) {
	forEachWSTarget(t, func(t *testing.T, name, addr string) {
		if err := Verify(context.Background(), name, addr, []scenario.Scenario{wsScenario(t)}); err != nil {
			t.Fatal(err)
		}
		if err := Verify(context.Background(), name, addr, scenario.All()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWSEchoBehaviour checks what the scenario promises, identically on every peer target.
func TestWSEchoBehaviour(t *testing.T) {
	forEachWSTarget(t, func(t *testing.T, name, addr string) {
		t.Run("text stays text, binary stays binary", func(t *testing.T) {
			c := dialWS(t, addr, 0)
			expectEcho(t, c, websocket.TextMessage, []byte("hello, Grüße"))
			expectEcho(t, c, websocket.BinaryMessage, []byte("hello, Grüße")) // valid UTF-8, still binary
			expectEcho(t, c, websocket.TextMessage, []byte{})
			expectEcho(t, c, websocket.BinaryMessage, scenario.WSPayload(scenario.WSMessageSize))
		})

		t.Run("pipelined messages come back in order", func(t *testing.T) {
			c := dialWS(t, addr, 0)
			const n = 50
			for i := range n {
				msg := scenario.WSPayload(scenario.WSMessageSize)
				msg[0] = byte(i)
				if err := c.WriteMessage(websocket.BinaryMessage, msg); err != nil {
					t.Fatal(err)
				}
			}
			for i := range n {
				op, got, err := c.ReadMessage()
				if err != nil || op != websocket.BinaryMessage || len(got) != scenario.WSMessageSize || got[0] != byte(i) {
					t.Fatalf("echo %d: %s %s %v", i, wsOpName(op), wsShow(op, got), err)
				}
			}
		})

		t.Run("fragmented message echoed whole", func(t *testing.T) {
			c := dialWS(t, addr, 512) // the client sends 512-byte frames
			expectEcho(t, c, websocket.TextMessage, []byte(strings.Repeat("fragmented text ✓ ", 400)))
			expectEcho(t, c, websocket.BinaryMessage, scenario.WSPayload(10_000))
		})

		t.Run("ping answered with pong", func(t *testing.T) {
			c := dialWS(t, addr, 0)
			var pong []string
			c.SetPongHandler(func(p string) error { pong = append(pong, p); return nil })
			if err := c.WriteControl(websocket.PingMessage, []byte("are you there"), time.Now().Add(5*time.Second)); err != nil {
				t.Fatal(err)
			}
			expectEcho(t, c, websocket.BinaryMessage, []byte("after the ping"))
			if len(pong) != 1 || pong[0] != "are you there" {
				t.Fatalf("pongs %q, want one carrying the ping's payload", pong)
			}
		})

		t.Run("close handshake", func(t *testing.T) {
			c := dialWS(t, addr, 0)
			expectEcho(t, c, websocket.BinaryMessage, []byte("before the close"))
			if err := c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "bye"), time.Now().Add(5*time.Second)); err != nil {
				t.Fatal(err)
			}
			expectClose(t, c, 4000)
			// The server closes the TCP connection after the handshake.
			c.NetConn().SetReadDeadline(time.Now().Add(5 * time.Second))
			if n, err := c.NetConn().Read(make([]byte, 1)); n != 0 || err == nil {
				t.Fatalf("after the close handshake: read %d bytes, %v; want EOF", n, err)
			}
		})

		t.Run("largest message echoed", func(t *testing.T) {
			c := dialWS(t, addr, 0)
			expectEcho(t, c, websocket.BinaryMessage, scenario.WSPayload(scenario.WSMaxMessage))
			expectEcho(t, c, websocket.BinaryMessage, []byte("still open"))
		})

		t.Run("invalid UTF-8 text fails the connection", func(t *testing.T) {
			c := dialWS(t, addr, 0)
			if err := c.WriteMessage(websocket.TextMessage, []byte{'o', 'k', 0xff, 0xfe}); err != nil {
				t.Fatal(err)
			}
			expectRefused(t, c, name, websocket.CloseInvalidFramePayloadData)
		})
	})
}

// expectRefused reads until the connection ends and wants target's refusal for a reason with
// RFC 6455 status code: the Go targets send that close frame first (the RFC's SHOULD);
// uWebSockets closes the socket without one (a client sees 1006, abnormal closure, or a reset
// when its own data was still unread). Kept as a test so an upstream upgrade that changes it
// shows.
func expectRefused(t *testing.T, c *websocket.Conn, target string, code int) {
	t.Helper()
	if target != "uws" {
		expectClose(t, c, code)
		return
	}
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
			t.Fatalf("uws sent close %d %q; it used to drop the connection without a close frame", ce.Code, ce.Text)
		}
		return
	}
}

// TestWSEchoOversize: a message over scenario.WSMaxMessage is refused with close 1009 on the Go
// targets, whether one frame announces it or fragments add up to it; uws drops the connection.
func TestWSEchoOversize(t *testing.T) {
	forEachWSTarget(t, func(t *testing.T, name, addr string) {
		t.Run("one frame", func(t *testing.T) {
			c := dialWS(t, addr, 0)
			// The header of a masked binary frame announcing WSMaxMessage+1 bytes: the server
			// must refuse on the header, before any payload.
			h := []byte{0x82, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}
			binary.BigEndian.PutUint64(h[2:10], scenario.WSMaxMessage+1)
			if _, err := c.NetConn().Write(h); err != nil {
				t.Fatal(err)
			}
			expectRefused(t, c, name, websocket.CloseMessageTooBig)
		})

		t.Run("fragments", func(t *testing.T) {
			c := dialWS(t, addr, 64<<10)
			errc := make(chan error, 1)
			go func() {
				errc <- c.WriteMessage(websocket.BinaryMessage, scenario.WSPayload(scenario.WSMaxMessage+1))
			}()
			expectRefused(t, c, name, websocket.CloseMessageTooBig)
			<-errc // the write may fail: the server stopped reading
		})
	})
}

// TestVerifyWSMismatch: a server that does not upgrade, or echoes wrongly, fails verification
// with *Mismatch errors naming target, scenario, expected and got.
func TestVerifyWSMismatch(t *testing.T) {
	sc := wsScenario(t)
	hi := writeScript(t, "hi.py", hiServer)
	tg, err := Resolve("cmd:python3 " + hi + " {port}")
	if err != nil {
		t.Fatal(err)
	}
	s := startT(t, tg, StartOptions{})

	textAsBinary := wstest.EchoServer(t, func(_ int, msg []byte) (int, []byte) { return websocket.BinaryMessage, msg })
	corrupt := wstest.EchoServer(t, func(op int, msg []byte) (int, []byte) {
		msg[3] ^= 0xff
		return op, msg
	})

	for _, tc := range []struct{ addr, field, expected, got string }{
		{s.Addr(), "upgrade", "101 Switching Protocols to a WebSocket at /ws", "HTTP 200 OK"},
		{textAsBinary, "text echo opcode", "text", "binary"},
		{corrupt, "binary echo", "64 bytes 0b30557a9f", "64 bytes 0b3055859f"},
	} {
		err := Verify(context.Background(), "wrong", tc.addr, []scenario.Scenario{sc})
		var m *Mismatch
		if err == nil || !errors.As(err, &m) {
			t.Fatalf("Verify = %v, want a *Mismatch", err)
		}
		if m.Target != "wrong" || m.Scenario != "ws-echo" || m.Field != tc.field ||
			!strings.HasPrefix(m.Expected, tc.expected) || !strings.HasPrefix(m.Got, tc.got) {
			t.Errorf("Verify = %v\nwant field %q, expected %q…, got %q…", err, tc.field, tc.expected, tc.got)
		}
		if !strings.HasPrefix(err.Error(), "target wrong, scenario ws-echo: "+tc.field+": expected ") {
			t.Errorf("error text %q is not in the Mismatch shape", err)
		}
	}
}
