package wsload

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
)

// client is a plain blocking WebSocket client on a net.Conn, for the few messages of a probe
// or a verification, where clarity matters more than speed. It shares the frame code with the
// load path, so verification exercises the same encoder and parser.
type client struct {
	nc   net.Conn
	f    frameParser
	buf  []byte
	data []byte // unconsumed bytes of buf
}

// dial connects to addr and upgrades at path. Errors wrap ErrConnect or ErrHandshake. The
// context bounds the whole set-up.
func dial(ctx context.Context, addr, host, path string) (*client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w to %s: %v", ErrConnect, addr, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	c := &client{nc: nc, buf: make([]byte, 16<<10), f: frameParser{maxPayload: 64 << 20}}
	key := newKey()
	if _, err := nc.Write(upgradeRequest(host, path, key)); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%w: %s%s: writing the upgrade: %v", ErrHandshake, addr, path, err)
	}
	var head []byte
	for {
		n, err := nc.Read(c.buf)
		head = append(head, c.buf[:n]...)
		hl, herr := checkHandshake(head, acceptFor(key))
		if herr != nil {
			nc.Close()
			return nil, fmt.Errorf("%w: %s%s: %v", ErrHandshake, addr, path, herr)
		}
		if hl >= 0 {
			c.data = append(c.buf[:0], head[hl:]...)
			break
		}
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("%w: %s%s: reading the upgrade response: %v", ErrHandshake, addr, path, err)
		}
	}
	_ = nc.SetDeadline(time.Time{})
	return c, nil
}

// writeMessage sends one masked frame.
func (c *client) writeMessage(op byte, payload []byte) error {
	_, err := c.nc.Write(appendFrame(nil, op, payload, true, rand.Uint32()))
	return err
}

// readMessage returns the next data message (fragments joined) or a close frame (op close,
// payload its body). Pings are answered; pongs skipped.
func (c *client) readMessage() (byte, []byte, error) {
	var msg, ctl []byte
	var msgOp byte
	var inMsg bool
	for {
		for len(c.data) > 0 {
			n, ev, chunk := c.f.next(c.data)
			c.data = c.data[n:]
			switch ev {
			case evMore:
				continue
			case evProtocol:
				return 0, nil, fmt.Errorf("protocol error: %s", c.f.why)
			}
			op := c.f.op
			if op >= opClose { // control frames may sit between a message's fragments
				ctl = append(ctl, chunk...)
				if ev != evFrameEnd {
					continue
				}
				switch op {
				case opPing:
					if err := c.writeMessage(opPong, ctl); err != nil {
						return 0, nil, err
					}
				case opClose:
					return opClose, ctl, nil
				}
				ctl = ctl[:0]
				continue
			}
			if c.f.pos == len(chunk) { // a frame starts
				switch {
				case op != opContinuation && inMsg:
					return 0, nil, errors.New("protocol error: new data message inside a fragmented one")
				case op == opContinuation && !inMsg:
					return 0, nil, errors.New("protocol error: continuation frame without a message")
				case op != opContinuation:
					inMsg, msgOp = true, op
				}
			}
			msg = append(msg, chunk...)
			if ev == evFrameEnd && c.f.fin {
				return msgOp, msg, nil
			}
		}
		n, err := c.nc.Read(c.buf)
		c.data = c.buf[:n]
		if n == 0 && err != nil {
			if err == io.EOF {
				return 0, nil, errors.New("connection closed without a close frame")
			}
			return 0, nil, err
		}
	}
}

// closeClean sends close 1000 and waits for the server's close frame, discarding data
// messages still on their way; it reports what the server answered.
func (c *client) closeClean() error {
	defer c.nc.Close()
	if err := c.writeMessage(opClose, closePayload(closeNormal)); err != nil {
		return fmt.Errorf("sending close: %w", err)
	}
	for {
		op, p, err := c.readMessage()
		if err != nil {
			return fmt.Errorf("waiting for the close frame: %w", err)
		}
		if op != opClose {
			continue
		}
		if len(p) >= 2 {
			if code := binary.BigEndian.Uint16(p); code != closeNormal {
				return &MismatchError{Field: "close status", Expected: "1000", Got: strconv.Itoa(int(code))}
			}
		}
		return nil
	}
}

// Close drops the connection after a best-effort clean close.
func (c *client) Close() {
	_ = c.nc.SetDeadline(time.Now().Add(time.Second))
	_ = c.closeClean()
}

// MismatchError says what an echo got wrong. Its fields match harness/targets.Mismatch's, so
// the verifier can carry them over with the target and scenario names.
type MismatchError struct {
	Field    string // "binary echo", "text echo", "close status", …
	Expected string // already quoted or hex-encoded for display
	Got      string
}

func (m *MismatchError) Error() string {
	return fmt.Sprintf("ws-echo: %s: expected %s, got %s", m.Field, m.Expected, m.Got)
}

// VerifyPayload is the binary message Verify sends: the scenario's (every byte value distinct,
// so a shifted, truncated or partly rewritten echo shows).
var VerifyPayload = scenario.WSPayload(scenario.WSMessageSize)

// VerifyText is the text message Verify sends (multi-byte UTF-8 included, so a server that
// mangles encodings shows).
const VerifyText = "bindrace ws-echo verify: Grüße, 世界"

// Verify checks that addr (host:port) echoes WebSocket messages at /ws: one connection, a
// 64-byte binary message and a text message each echoed exactly (same opcode, same bytes),
// then a clean close (1000 answered). A wrong echo is a *MismatchError naming expected and
// got; other failures wrap ErrConnect or ErrHandshake or describe the protocol step.
// Without a deadline on ctx, 5 s bound the whole check.
func Verify(ctx context.Context, addr string) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	c, err := dial(ctx, addr, addr, scenario.WSPath)
	if err != nil {
		return err
	}
	defer c.nc.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	checks := []struct {
		field string
		op    byte
		data  []byte
	}{
		{"binary echo", opBinary, VerifyPayload},
		{"text echo", opText, []byte(VerifyText)},
	}
	for _, ck := range checks {
		if err := c.writeMessage(ck.op, ck.data); err != nil {
			return fmt.Errorf("ws-echo: sending the %s message: %w", opName(ck.op), err)
		}
		op, got, err := c.readMessage()
		if err != nil {
			return fmt.Errorf("ws-echo: waiting for the %s: %w", ck.field, err)
		}
		if op != ck.op {
			return &MismatchError{Field: ck.field + " opcode", Expected: opName(ck.op), Got: opName(op)}
		}
		if string(got) != string(ck.data) {
			return &MismatchError{Field: ck.field, Expected: show(ck.op, ck.data), Got: show(ck.op, got)}
		}
	}
	if err := c.closeClean(); err != nil {
		var m *MismatchError
		if errors.As(err, &m) {
			return err
		}
		return fmt.Errorf("ws-echo: closing: %w", err)
	}
	return nil
}

func opName(op byte) string {
	switch op {
	case opText:
		return "text"
	case opBinary:
		return "binary"
	case opClose:
		return "close"
	case opPing:
		return "ping"
	case opPong:
		return "pong"
	}
	return "opcode " + strconv.Itoa(int(op))
}

// show renders a message for an error: text quoted, binary as hex with its length, long
// ones cut.
func show(op byte, b []byte) string {
	if op == opText {
		return strconv.Quote(trunc(string(b), 200))
	}
	const max = 128
	s := hex.EncodeToString(b[:min(len(b), max)])
	if len(b) > max {
		s += "…"
	}
	return fmt.Sprintf("%d bytes %s", len(b), s)
}
