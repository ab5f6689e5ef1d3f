package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"time"
)

// WSConn is a plain blocking WebSocket client on a net.Conn, for the probe before a run, the
// paced client of the harness's counts (measure) and the tests' servers, where clarity matters
// more than speed. It shares the frame code with the load path: the harness has one WebSocket
// client of its own (verification uses an independent one on purpose: targets/verify_ws.go).
type WSConn struct {
	nc   net.Conn
	f    frameParser
	buf  []byte
	data []byte // unconsumed bytes of buf
}

// OpBinary is a binary message's opcode, as WriteMessage takes and ReadMessage returns it.
const OpBinary = opBinary

// dialWS connects to addr and upgrades at path. Errors wrap errConnect or errHandshake. The
// context bounds the whole set-up.
func dialWS(ctx context.Context, addr, host, path string) (*WSConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w to %s: %v", errConnect, addr, err)
	}
	return UpgradeWS(ctx, nc, host, path)
}

// UpgradeWS upgrades nc at host's path; the context bounds the handshake. nc is closed when the
// upgrade fails; errors wrap errHandshake.
func UpgradeWS(ctx context.Context, nc net.Conn, host, path string) (*WSConn, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	c := &WSConn{nc: nc, buf: make([]byte, 16<<10), f: frameParser{maxPayload: 64 << 20}}
	key := newKey()
	addr := nc.RemoteAddr().String()
	if _, err := nc.Write(upgradeRequest(host, path, key)); err != nil {
		nc.Close()
		return nil, fmt.Errorf("%w: %s%s: writing the upgrade: %v", errHandshake, addr, path, err)
	}
	var head []byte
	for {
		n, err := nc.Read(c.buf)
		head = append(head, c.buf[:n]...)
		hl, herr := checkHandshake(head, acceptFor(key))
		if herr != nil {
			nc.Close()
			return nil, fmt.Errorf("%w: %s%s: %v", errHandshake, addr, path, herr)
		}
		if hl >= 0 {
			c.data = append(c.buf[:0], head[hl:]...)
			break
		}
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("%w: %s%s: reading the upgrade response: %v", errHandshake, addr, path, err)
		}
	}
	_ = nc.SetDeadline(time.Time{})
	return c, nil
}

// WriteMessage sends one masked frame.
func (c *WSConn) WriteMessage(op byte, payload []byte) error {
	_, err := c.nc.Write(appendFrame(nil, op, payload, true, rand.Uint32()))
	return err
}

// ReadMessage returns the next data message (fragments joined) or a close frame (op close,
// payload its body). Pings are answered; pongs skipped.
func (c *WSConn) ReadMessage() (byte, []byte, error) {
	var msg, ctl []byte
	var msgOp byte
	var inMsg bool
	for {
		for len(c.data) > 0 {
			n, ev, chunk := c.f.next(c.data)
			c.data = c.data[n:]
			switch ev {
			case wsMore:
				continue
			case wsProtocol:
				return 0, nil, fmt.Errorf("protocol error: %s", c.f.why)
			}
			op := c.f.op
			if op >= opClose { // control frames may sit between a message's fragments
				ctl = append(ctl, chunk...)
				if ev != wsFrameEnd {
					continue
				}
				switch op {
				case opPing:
					if err := c.WriteMessage(opPong, ctl); err != nil {
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
			if ev == wsFrameEnd && c.f.fin {
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
func (c *WSConn) closeClean() error {
	defer c.nc.Close()
	if err := c.WriteMessage(opClose, closePayload(closeNormal)); err != nil {
		return fmt.Errorf("sending close: %w", err)
	}
	for {
		op, p, err := c.ReadMessage()
		if err != nil {
			return fmt.Errorf("waiting for the close frame: %w", err)
		}
		if op != opClose {
			continue
		}
		if len(p) >= 2 {
			if code := binary.BigEndian.Uint16(p); code != closeNormal {
				return fmt.Errorf("close status %d, want 1000", code)
			}
		}
		return nil
	}
}

// Close drops the connection after a best-effort clean close.
func (c *WSConn) Close() {
	_ = c.nc.SetDeadline(time.Now().Add(time.Second))
	_ = c.closeClean()
}
