package engine

import (
	"bytes"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"strings"
)

// acceptGUID is the fixed GUID of RFC 6455 §1.3 that the server appends to the key.
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// maxHandshakeBytes bounds the 101 response: a peer that sends headers without end is a
// handshake error, not unbounded memory.
const maxHandshakeBytes = 16 << 10

// newKey is a fresh Sec-WebSocket-Key: 16 random bytes, base64 (§4.1). Random per connection
// so that no cache or proxy can answer the upgrade from an earlier one.
func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails on Linux (getrandom)
	return base64.StdEncoding.EncodeToString(b[:])
}

// acceptFor is the Sec-WebSocket-Accept a server must answer key with (§4.2.2).
func acceptFor(key string) string {
	h := sha1.Sum([]byte(key + acceptGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// upgradeRequest renders the opening handshake. No extension (permessage-deflate) and no
// subprotocol is offered: the scenario measures plain 64-byte frames.
func upgradeRequest(host, path, key string) []byte {
	return []byte("GET " + path + " HTTP/1.1\r\nHost: " + host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
		"\r\nSec-WebSocket-Version: 13\r\n\r\n")
}

// checkHandshake reads the server's answer to the upgrade from the bytes received so far.
// It returns the length of the response head (frames may follow it in the same read), -1 if
// the head is not complete yet, or an error saying what is wrong with it.
func checkHandshake(b []byte, accept string) (int, error) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) > maxHandshakeBytes {
			return 0, fmt.Errorf("handshake response head over %d bytes", maxHandshakeBytes)
		}
		return -1, nil
	}
	lines := strings.Split(string(b[:end]), "\r\n")
	status := lines[0]
	if !strings.HasPrefix(status, "HTTP/1.1 101") || (len(status) > 12 && status[12] != ' ') {
		return 0, fmt.Errorf("handshake: want status 101, got %q", trunc(status, 80))
	}
	var upgrade, connection, gotAccept, ext, proto string
	for _, l := range lines[1:] {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			return 0, fmt.Errorf("handshake: malformed header line %q", trunc(l, 80))
		}
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "upgrade":
			upgrade = value
		case "connection":
			connection = value
		case "sec-websocket-accept":
			gotAccept = value
		case "sec-websocket-extensions":
			ext = value
		case "sec-websocket-protocol":
			proto = value
		}
	}
	if !strings.EqualFold(upgrade, "websocket") {
		return 0, fmt.Errorf("handshake: Upgrade is %q, want websocket", upgrade)
	}
	if !listHasToken(connection, "upgrade") {
		return 0, fmt.Errorf("handshake: Connection is %q, want Upgrade", connection)
	}
	if gotAccept != accept {
		return 0, fmt.Errorf("handshake: Sec-WebSocket-Accept is %q, want %q", gotAccept, accept)
	}
	// §4.1: the client must fail the connection when the server picks an extension or a
	// subprotocol it did not offer; a compressed echo would also measure something else.
	if ext != "" {
		return 0, fmt.Errorf("handshake: server chose extension %q that was not offered", ext)
	}
	if proto != "" {
		return 0, fmt.Errorf("handshake: server chose subprotocol %q that was not offered", proto)
	}
	return end + 4, nil
}

func listHasToken(list, token string) bool {
	for _, t := range strings.Split(list, ",") {
		if strings.EqualFold(strings.TrimSpace(t), token) {
			return true
		}
	}
	return false
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
