package measure

import (
	"bytes"
	"context"
	"fmt"
	"net"

	"github.com/bindrace/bindrace/harness/internal/engine"
)

// wsExchange sends one binary message and reads its echo, with the harness's own WebSocket
// client (engine.WSConn). Its frames go to the paced connection, which holds a batch's frames
// and writes them at once.
type wsExchange struct {
	host, path string
	payload    []byte
	c          *engine.WSConn
}

// open upgrades the connection c at the scenario's path; c's deadline (dialPaced's) bounds the
// handshake.
func (w *wsExchange) open(ctx context.Context, c net.Conn) error {
	conn, err := engine.UpgradeWS(ctx, c, w.host, w.path)
	if err != nil {
		return fmt.Errorf("upgrade: %w", err)
	}
	w.c = conn
	return nil
}

func (w *wsExchange) send() error { return w.c.WriteMessage(engine.OpBinary, w.payload) }

// read reads one message and wants it to be the payload sent, as binary.
func (w *wsExchange) read() error {
	op, msg, err := w.c.ReadMessage()
	switch {
	case err != nil:
		return err
	case op != engine.OpBinary:
		return fmt.Errorf("echo with opcode %d, want a binary message (%d)", op, engine.OpBinary)
	case !bytes.Equal(msg, w.payload):
		return fmt.Errorf("echo differs from the message sent (%d bytes, want %d)", len(msg), len(w.payload))
	}
	return nil
}
