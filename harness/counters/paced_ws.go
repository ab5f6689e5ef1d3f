package counters

import (
	"bytes"
	"context"
	"fmt"
	"net"

	"github.com/gorilla/websocket"
)

// wsExchange sends one binary message and reads its echo, with gorilla/websocket's client (the
// one verification uses too). Its frames go to the paced connection, which holds a batch's
// frames and writes them at once.
type wsExchange struct {
	host, path string
	payload    []byte
	c          *websocket.Conn
}

// open upgrades the connection c at the scenario's path.
func (w *wsExchange) open(ctx context.Context, c net.Conn) error {
	// The connection's deadline (dialPaced's) bounds the handshake.
	d := websocket.Dialer{NetDialContext: func(context.Context, string, string) (net.Conn, error) { return c, nil }}
	conn, resp, err := d.DialContext(ctx, "ws://"+w.host+w.path, nil)
	if err != nil {
		if resp != nil {
			return fmt.Errorf("upgrade: status %q, want 101", resp.Status)
		}
		return fmt.Errorf("upgrade: %w", err)
	}
	w.c = conn
	return nil
}

func (w *wsExchange) send() error { return w.c.WriteMessage(websocket.BinaryMessage, w.payload) }

// read reads one message and wants it to be the payload sent, as binary.
func (w *wsExchange) read() error {
	op, msg, err := w.c.ReadMessage()
	switch {
	case err != nil:
		return err
	case op != websocket.BinaryMessage:
		return fmt.Errorf("echo with opcode %d, want a binary message (2)", op)
	case !bytes.Equal(msg, w.payload):
		return fmt.Errorf("echo differs from the message sent (%d bytes, want %d)", len(msg), len(w.payload))
	}
	return nil
}
