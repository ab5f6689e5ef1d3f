// Package wstest holds the WebSocket test server that tests of several packages share.
package wstest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
)

// EchoServer starts a gorilla/websocket server on 127.0.0.1 that answers every message of
// every connection (at any path) with reply(opcode, message), or echoes it unchanged when reply
// is nil. It returns host:port and stops with the test.
func EchoServer(t testing.TB, reply func(op int, msg []byte) (int, []byte)) string {
	t.Helper()
	if reply == nil {
		reply = func(op int, msg []byte) (int, []byte) { return op, msg }
	}
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			op, msg, err := c.ReadMessage()
			if err != nil || c.WriteMessage(reply(op, msg)) != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}
