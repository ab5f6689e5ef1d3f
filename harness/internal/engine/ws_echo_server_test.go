package engine

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/loopback"
	"github.com/gorilla/websocket"
)

// Test servers. All listen on 127.0.0.1 only (httptest's default) and stop with the test.

// echoServer is a gorilla/websocket server at /ws whose handler decides what to do with each
// connection; messages counts what it read, so tests can check the client's count against
// the server's.
type echoServer struct {
	Addr     string
	messages atomic.Int64
	srv      *httptest.Server
}

// echoOptions varies the echo for the failure tests.
type echoOptions struct {
	corruptEvery int64         // flip a byte in every Nth message (server-wide)
	closeAfter   int           // send close 1001 after this many messages on a connection
	dropAfter    int           // drop the TCP connection (no close frame) after this many
	pingEvery    int           // send a ping before every Nth echo
	writeBuf     int           // gorilla write buffer size; small values fragment echoes
	pings, pongs *atomic.Int64 // count pings sent and pongs received, when pinging
}

func startEcho(t testing.TB, o echoOptions) *echoServer {
	t.Helper()
	es := &echoServer{}
	up := websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: max(o.writeBuf, 4096)}
	if o.writeBuf > 0 {
		up.WriteBufferSize = o.writeBuf
	}
	es.srv = httptest.NewServer(es.handler(up, o))
	es.Addr = strings.TrimPrefix(es.srv.URL, "http://")
	t.Cleanup(es.srv.Close)
	return es
}

// handler upgrades requests for /ws with up and echoes on each connection as o says.
func (es *echoServer) handler(up websocket.Upgrader, o echoOptions) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if o.pongs != nil {
			c.SetPongHandler(func(string) error { o.pongs.Add(1); return nil })
		}
		es.serve(c, o)
	})
	return mux
}

func (es *echoServer) serve(c *websocket.Conn, o echoOptions) {
	for n := 1; ; n++ {
		mt, msg, err := c.ReadMessage()
		if err != nil {
			return // includes the client's close, which gorilla has already answered
		}
		total := es.messages.Add(1)
		if o.corruptEvery > 0 && total%o.corruptEvery == 0 && len(msg) > 0 {
			msg[len(msg)/2] ^= 0x20
		}
		if o.pingEvery > 0 && n%o.pingEvery == 0 {
			if err := c.WriteControl(websocket.PingMessage, []byte("p"), time.Now().Add(time.Second)); err != nil {
				return
			}
			o.pings.Add(1)
		}
		if err := c.WriteMessage(mt, msg); err != nil {
			return
		}
		if o.closeAfter > 0 && n == o.closeAfter {
			_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "bye"),
				time.Now().Add(time.Second))
			return
		}
		if o.dropAfter > 0 && n == o.dropAfter {
			return
		}
	}
}

// rawWSServer accepts TCP connections on loopback and hands each to fn (e.g. a handshake with
// a wrong Accept).
func rawWSServer(t testing.TB, fn func(net.Conn, *bufio.Reader)) string {
	t.Helper()
	ln, _ := loopback.Listen(t)
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				fn(c, bufio.NewReader(c))
			}()
		}
	}()
	return ln.Addr().String()
}

// readUpgrade reads a request head and returns its Sec-WebSocket-Key.
func readUpgrade(br *bufio.Reader) (string, error) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return "", err
	}
	return req.Header.Get("Sec-WebSocket-Key"), nil
}

// switchProtocols answers an upgrade with 101 and the given Sec-WebSocket-Accept.
func switchProtocols(c net.Conn, accept string) {
	fmt.Fprintf(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n", accept)
}

// acceptUpgrade reads an upgrade request and answers it correctly; false when none came.
func acceptUpgrade(c net.Conn, br *bufio.Reader) bool {
	key, err := readUpgrade(br)
	if err != nil {
		return false
	}
	switchProtocols(c, acceptFor(key))
	return true
}
