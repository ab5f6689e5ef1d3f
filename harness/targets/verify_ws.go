package targets

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/gorilla/websocket"

	"github.com/bindrace/bindrace/harness/scenario"
)

// wsVerifyText is the text message verification sends besides the scenario's binary one:
// multi-byte UTF-8, so a server that re-encodes text, or answers text as binary, shows.
const wsVerifyText = "bindrace ws-echo: text stays text — Grüße, 世界"

// wsVerifyPing is the ping payload the pong must carry back.
const wsVerifyPing = "bindrace-ping"

// wsVerifyTimeout bounds one WebSocket verification when ctx has no earlier deadline.
const wsVerifyTimeout = 10 * time.Second

// verifyWS checks a WebSocket scenario with gorilla/websocket's client, an implementation
// independent of every target and of the load generator: upgrade at sc.Path, the scenario's
// binary message echoed exactly as binary, a ping answered by a pong with its payload, a text
// message echoed exactly as text, then a close 1000 answered with close 1000. The first
// failure ends the check (the connection's state is unknown after it).
func verifyWS(ctx context.Context, target, addr string, sc scenario.Scenario) []*Mismatch {
	var ms []*Mismatch
	add := func(field, expected, got string) []*Mismatch {
		ms = append(ms, &Mismatch{Target: target, Scenario: sc.Name, Field: field, Expected: expected, Got: got})
		return ms
	}
	ctx, cancel := context.WithTimeout(ctx, wsVerifyTimeout)
	defer cancel()
	deadline, _ := ctx.Deadline()

	d := websocket.Dialer{HandshakeTimeout: wsVerifyTimeout} // no Proxy: loopback, as Verify's HTTP client
	c, resp, err := d.DialContext(ctx, "ws://"+addr+sc.Path, nil)
	if err != nil {
		// The route the upgrade asked for goes in got: a target that lacks it answers 404 or
		// closes the connection, and the mismatch should say what to add.
		route := sc.Method + " " + sc.Path
		got := fmt.Sprintf("no answer to %s: %v", route, err)
		if resp != nil {
			got = fmt.Sprintf("HTTP %s to %s (%v)", resp.Status, route, err)
		}
		return add("upgrade", "101 Switching Protocols to a WebSocket at "+sc.Path, got)
	}
	defer c.Close()
	c.SetReadDeadline(deadline)
	c.SetWriteDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { c.NetConn().SetDeadline(time.Unix(1, 0)) })
	defer stop()

	if !verifyEcho(c, "binary echo", websocket.BinaryMessage, sc.Body, add) {
		return ms
	}
	// The pong must arrive before the next echo: the server handles frames in order.
	var pong *string
	c.SetPongHandler(func(p string) error { pong = &p; return nil })
	if err := c.WriteControl(websocket.PingMessage, []byte(wsVerifyPing), deadline); err != nil {
		return add("pong", fmt.Sprintf("pong %q", wsVerifyPing), "sending the ping failed: "+err.Error())
	}
	if !verifyEcho(c, "text echo", websocket.TextMessage, []byte(wsVerifyText), add) {
		return ms
	}
	switch {
	case pong == nil:
		return add("pong", fmt.Sprintf("pong %q before the next echo", wsVerifyPing), "no pong")
	case *pong != wsVerifyPing:
		return add("pong", fmt.Sprintf("pong %q", wsVerifyPing), fmt.Sprintf("pong %q", *pong))
	}

	verifyClose(c, deadline, add)
	return ms
}

func wsOpName(op int) string {
	switch op {
	case websocket.TextMessage:
		return "text"
	case websocket.BinaryMessage:
		return "binary"
	}
	return fmt.Sprintf("opcode %d", op)
}

// wsShow renders a message for a mismatch: text quoted, binary as length and hex, cut to 128
// bytes.
func wsShow(op int, b []byte) string {
	if op == websocket.TextMessage {
		return quoteBody(b)
	}
	const max = 128
	s := hex.EncodeToString(b[:min(len(b), max)])
	if len(b) > max {
		s += "…"
	}
	return fmt.Sprintf("%d bytes %s", len(b), s)
}

// addMismatch records a mismatch of the WebSocket check and returns every one so far.
type addMismatch func(field, expected, got string) []*Mismatch

// verifyEcho sends msg as an op message and checks the echo.
func verifyEcho(c *websocket.Conn, field string, op int, msg []byte, add addMismatch) bool {
	if err := c.WriteMessage(op, msg); err != nil {
		add(field, wsShow(op, msg), "sending failed: "+err.Error())
		return false
	}
	gotOp, got, err := c.ReadMessage()
	switch {
	case err != nil:
		add(field, wsShow(op, msg), "no echo: "+err.Error())
	case gotOp != op:
		add(field+" opcode", wsOpName(op), wsOpName(gotOp)+" "+wsShow(gotOp, got))
	case string(got) != string(msg):
		add(field, wsShow(op, msg), wsShow(gotOp, got))
	default:
		return true
	}
	return false
}

// verifyClose runs the close handshake: it sends 1000, and the server must answer 1000 (RFC 6455
// section 5.5.1).
func verifyClose(c *websocket.Conn, deadline time.Time, add addMismatch) {
	if err := c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), deadline); err != nil {
		add("close", "close 1000 answered", "sending the close failed: "+err.Error())
		return
	}
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue // a data message sent before the server saw our close; the close follows
		}
		var ce *websocket.CloseError
		switch {
		case !errors.As(err, &ce):
			add("close", "close 1000 answered", err.Error())
		case ce.Code != websocket.CloseNormalClosure:
			add("close", "close 1000 answered", fmt.Sprintf("close %d %q", ce.Code, ce.Text))
		}
		return
	}
}
