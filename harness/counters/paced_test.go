package counters

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/wstest"
	"github.com/bindrace/bindrace/harness/scenario"
)

func TestPacedWebSocketEcho(t *testing.T) {
	sc, err := scenario.ByName("ws-echo")
	if err != nil {
		t.Fatal(err)
	}
	run := func(addr string) (int64, error) {
		n, _, err := pacedRun(context.Background(), addr, exchangeFor(sc, addr), 25, 10, 0, 5*time.Second)
		return n, err
	}

	// 25 messages in batches of 10, 10 and 5, every echo checked.
	if n, err := run(wstest.EchoServer(t, nil)); err != nil || n != 25 {
		t.Errorf("echo server: %d echoes, %v; want 25, nil", n, err)
	}

	corrupt := wstest.EchoServer(t, func(op int, msg []byte) (int, []byte) {
		msg[7] ^= 1
		return op, msg
	})
	if n, err := run(corrupt); err == nil || n != 0 || !strings.Contains(err.Error(), "echo differs") {
		t.Errorf("corrupting server: %d echoes, %v; want 0 and \"echo differs\"", n, err)
	}

	text := wstest.EchoServer(t, func(_ int, msg []byte) (int, []byte) { return 1, msg })
	if _, err := run(text); err == nil || !strings.Contains(err.Error(), "want an unmasked final binary frame") {
		t.Errorf("text echo: %v; want the frame header named", err)
	}

	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer plain.Close()
	if _, err := run(strings.TrimPrefix(plain.URL, "http://")); err == nil || !strings.Contains(err.Error(), "want 101") {
		t.Errorf("HTTP server: %v; want the upgrade refusal named", err)
	}
}

func TestMaskedFrame(t *testing.T) {
	for _, n := range []int{0, 64, 125, 126, 1000} {
		f := maskedFrame(make([]byte, n))
		head := 2 + 4
		if n >= 126 {
			head += 2
		}
		if len(f) != head+n || f[0] != 0x82 || f[1]&0x80 == 0 {
			t.Errorf("payload %d: frame of %d bytes, header %#x %#x", n, len(f), f[0], f[1])
		}
		// A zero payload masked is the key repeated: the mask was applied.
		if n >= 4 && string(f[head:head+4]) != string(wsMaskKey[:]) {
			t.Errorf("payload %d: masked bytes %x, want the key %x", n, f[head:head+4], wsMaskKey)
		}
	}
}
