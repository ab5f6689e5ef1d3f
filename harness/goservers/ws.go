package goservers

import (
	"io"
	"time"
	"unicode/utf8"

	"github.com/bindrace/bindrace/harness/scenario"
)

// The ws-echo scenario's server side, shared by the Go targets. nethttp runs it on
// github.com/gorilla/websocket, fasthttp on github.com/fasthttp/websocket (gorilla's API ported
// to fasthttp); both hand it their *Conn through wsConn. The uws target configures the same
// behaviour in uws/server.ts:
//
//   - every message is echoed whole with its own opcode (binary stays binary, text stays text);
//     fragmented messages are reassembled and echoed as one;
//   - pings are answered with pongs and a close is answered with the same status (the
//     libraries' default handlers);
//   - a message over scenario.WSMaxMessage is refused with close 1009 (the libraries send it
//     when SetReadLimit is exceeded, before reading the payload);
//   - a text message that is not UTF-8 is refused with close 1007, as RFC 6455 section 8.1
//     requires and uWebSockets does;
//   - no compression, any Origin (uWebSockets checks none);
//   - a connection that sends nothing for wsIdleTimeout is dropped (uws: idleTimeout).

// wsIdleTimeout matches uws/server.ts's idleTimeout (seconds there).
const wsIdleTimeout = 120 * time.Second

// wsDeadlineSlack is how stale the read deadline may get before it is pushed forward again:
// setting it on every 64-byte message would cost more than the echo. uWebSockets' own timer
// ticks every 4 s, so the timeout is no coarser than the upstream's.
const wsDeadlineSlack = 4 * time.Second

// wsKeepBuffer bounds the message buffer a connection keeps between messages: one 16 MiB
// message must not pin 16 MiB for the connection's lifetime.
const wsKeepBuffer = 64 << 10

// Message and frame opcodes; gorilla's constants and its fasthttp port's are the same numbers.
const (
	wsText  = 1
	wsBin   = 2
	wsClose = 8
)

// wsConn is the part of a gorilla-style *websocket.Conn the echo uses.
type wsConn interface {
	SetReadLimit(limit int64)
	SetReadDeadline(t time.Time) error
	NextReader() (messageType int, r io.Reader, err error)
	WriteMessage(messageType int, data []byte) error
	WriteControl(messageType int, data []byte, deadline time.Time) error
	Close() error
}

// wsEcho serves one upgraded connection until the client closes it or breaks the protocol.
func wsEcho(c wsConn) {
	defer c.Close()
	c.SetReadLimit(scenario.WSMaxMessage)
	var buf []byte
	var refreshed time.Time
	for {
		if now := time.Now(); now.Sub(refreshed) >= wsDeadlineSlack {
			if c.SetReadDeadline(now.Add(wsIdleTimeout)) != nil {
				return
			}
			refreshed = now
		}
		// Any error ends the connection: the client's close (already answered by the default
		// close handler), the read limit (already answered with 1009), the idle deadline, EOF.
		op, r, err := c.NextReader()
		if err != nil {
			return
		}
		if buf, err = readMessage(buf[:0], r); err != nil {
			return
		}
		if op == wsText && !utf8.Valid(buf) {
			c.WriteControl(wsClose, []byte{1007 >> 8, 1007 & 0xff}, time.Now().Add(time.Second))
			return
		}
		if c.WriteMessage(op, buf) != nil {
			return
		}
		if cap(buf) > wsKeepBuffer {
			buf = nil
		}
	}
}

// readMessage appends r's whole message to buf, growing it as needed (the read limit bounds it).
func readMessage(buf []byte, r io.Reader) ([]byte, error) {
	if cap(buf) == 0 {
		buf = make([]byte, 0, 512)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
