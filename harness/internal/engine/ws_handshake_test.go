package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

func TestAcceptRFCExample(t *testing.T) {
	// RFC 6455 §1.3's worked example.
	if got := acceptFor("dGhlIHNhbXBsZSBub25jZQ=="); got != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("accept %q", got)
	}
	if a, b := newKey(), newKey(); a == b || len(a) != 24 {
		t.Fatalf("keys %q %q: want fresh 16-byte base64 keys", a, b)
	}
}

func TestCheckHandshake(t *testing.T) {
	const key = "dGhlIHNhbXBsZSBub25jZQ=="
	accept := acceptFor(key)
	ok := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n"
	frame := "\x82\x01x"
	cases := []struct {
		name    string
		resp    string
		wantLen int    // -1 incomplete; ignored on error
		wantErr string // substring
	}{
		{"ok", ok, len(ok), ""},
		{"ok with a frame behind", ok + frame, len(ok), ""},
		{"case-insensitive names and tokens", strings.NewReplacer("Upgrade: websocket", "upgrade: WebSocket",
			"Connection: Upgrade", "connection: keep-alive, upgrade").Replace(ok), len(ok) + 12, ""},
		{"incomplete", ok[:len(ok)-2], -1, ""},
		{"wrong accept", strings.Replace(ok, accept, acceptFor("AAAAAAAAAAAAAAAAAAAAAA=="), 1), 0, "Sec-WebSocket-Accept"},
		{"no accept", strings.Replace(ok, "Sec-WebSocket-Accept: "+accept+"\r\n", "", 1), 0, "Sec-WebSocket-Accept"},
		{"status 200", strings.Replace(ok, "101 Switching Protocols", "200 OK", 1), 0, "101"},
		{"status 1010", strings.Replace(ok, "101 Switching", "1010 Switching", 1), 0, "101"},
		{"no upgrade", strings.Replace(ok, "Upgrade: websocket\r\n", "", 1), 0, "Upgrade"},
		{"no connection", strings.Replace(ok, "Connection: Upgrade\r\n", "", 1), 0, "Connection"},
		{"extension not offered", strings.Replace(ok, "\r\n\r\n", "\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n", 1), 0, "extension"},
		{"too long", "HTTP/1.1 101 x\r\n" + strings.Repeat("X-Pad: y\r\n", 2000), 0, "over"},
	}
	for _, c := range cases {
		n, err := checkHandshake([]byte(c.resp), accept)
		switch {
		case c.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case n != c.wantLen:
			t.Errorf("%s: head length %d, want %d", c.name, n, c.wantLen)
		}
	}
}

// wrongAcceptServer answers every upgrade with 101 and an Accept computed from another key.
func wrongAcceptServer(t *testing.T) string {
	return rawWSServer(t, func(c net.Conn, br *bufio.Reader) {
		key, err := readUpgrade(br)
		if err != nil {
			return
		}
		switchProtocols(c, acceptFor(key+"x"))
		_, _ = br.ReadByte() // hold the connection until the client gives up
	})
}

func TestRunWrongAcceptIsHandshakeError(t *testing.T) {
	addr := wrongAcceptServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{Protocol: WebSocket, Addr: addr, Connections: 2, Count: 10, Timeout: 2 * time.Second}, Hooks{})
	if !errors.Is(err, errHandshake) || res != nil {
		t.Fatalf("Run: %v, %v; want errHandshake and no result", res, err)
	}
	if !strings.Contains(err.Error(), "Sec-WebSocket-Accept") {
		t.Fatalf("error %q does not say what was wrong", err)
	}
	if _, err := dialWS(ctx, addr, addr, "/ws"); !errors.Is(err, errHandshake) {
		t.Fatalf("dialWS: %v, want errHandshake", err)
	}
}

// The probe passes but later upgrades fail: the workers count handshake errors, and Count
// mode ends (incomplete) rather than hanging.
func TestRunHandshakeErrorsCounted(t *testing.T) {
	first := make(chan struct{}, 1)
	first <- struct{}{}
	addr := rawWSServer(t, func(c net.Conn, br *bufio.Reader) {
		key, err := readUpgrade(br)
		if err != nil {
			return
		}
		select {
		case <-first: // the probe: a correct answer, then read its close and answer it
			switchProtocols(c, acceptFor(key))
			buf := make([]byte, 64)
			_, _ = br.Read(buf)
			_, _ = c.Write([]byte{0x88, 2, 0x03, 0xE8})
		default:
			fmt.Fprint(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := Run(ctx, Config{Protocol: WebSocket, Addr: addr, Connections: 2, Workers: 1, Count: 10, Timeout: 300 * time.Millisecond}, Hooks{})
	if !errors.Is(err, ErrIncomplete) {
		t.Fatalf("err %v, want ErrIncomplete", err)
	}
	if res.Errors[kindHandshake] == 0 || res.Responses != 0 {
		t.Fatalf("result %+v: want handshake errors and no messages", res)
	}
}
