package counters

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
)

// wsExchange sends one masked binary message (RFC 6455 5.2) and reads its echo. The masking key
// is fixed: a client must mask, but the key's value does not matter to an echo server, and a
// fixed one keeps every batch's bytes, and so the server's work, identical.
type wsExchange struct {
	host, path string
	payload    []byte
	frame      []byte // the masked frame, built once
	echo       []byte // reused buffer for the echoed payload
}

var wsMaskKey = [4]byte{0x5a, 0x3c, 0x96, 0x0f}

// open upgrades the connection and builds the frame.
func (w *wsExchange) open(c net.Conn, br *bufio.Reader) error {
	req := "GET " + w.path + " HTTP/1.1\r\nHost: " + w.host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		return fmt.Errorf("upgrade: %w", err)
	}
	status, err := br.ReadString('\n')
	if err != nil {
		return fmt.Errorf("upgrade: %w", err)
	}
	if f := strings.Fields(status); len(f) < 2 || f[1] != "101" {
		return fmt.Errorf("upgrade: status %q, want 101", strings.TrimSpace(status))
	}
	for { // the rest of the 101's head; its Sec-WebSocket-Accept is verify's business
		line, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("upgrade: %w", err)
		}
		if line == "\r\n" {
			break
		}
	}
	w.frame = maskedFrame(w.payload)
	w.echo = make([]byte, len(w.payload))
	return nil
}

func (w *wsExchange) request() []byte { return w.frame }

// read reads one unmasked, unfragmented binary frame and wants it to carry the payload sent.
func (w *wsExchange) read(br *bufio.Reader) error {
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return err
	}
	if h[0] != 0x82 || h[1]&0x80 != 0 {
		return fmt.Errorf("frame header %#x %#x, want an unmasked final binary frame", h[0], h[1])
	}
	n := int(h[1] & 0x7f)
	if n == 126 {
		var ext [2]byte
		if _, err := io.ReadFull(br, ext[:]); err != nil {
			return err
		}
		n = int(binary.BigEndian.Uint16(ext[:]))
	}
	if n != len(w.payload) {
		return fmt.Errorf("echo of %d bytes, want %d", n, len(w.payload))
	}
	if _, err := io.ReadFull(br, w.echo); err != nil {
		return err
	}
	if !bytes.Equal(w.echo, w.payload) {
		return fmt.Errorf("echo differs from the message sent")
	}
	return nil
}

// maskedFrame is payload as a client's final binary frame (payloads under 64 KiB).
func maskedFrame(payload []byte) []byte {
	f := []byte{0x82, 0x80 | byte(len(payload))}
	if len(payload) >= 126 {
		f = binary.BigEndian.AppendUint16([]byte{0x82, 0x80 | 126}, uint16(len(payload)))
	}
	f = append(f, wsMaskKey[:]...)
	for i, b := range payload {
		f = append(f, b^wsMaskKey[i%4])
	}
	return f
}
