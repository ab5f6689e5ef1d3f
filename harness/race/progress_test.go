package race

import (
	"bytes"
	"strings"
	"testing"
)

func TestProgress(t *testing.T) {
	if s := Thousands(482113.4); s != "482,113" {
		t.Errorf("Thousands: %s", s)
	}
	if s := Thousands(999); s != "999" {
		t.Errorf("Thousands: %s", s)
	}
	var b bytes.Buffer
	p := NewProgress(&b) // not a terminal: no status lines, plain log lines
	p.Status("pair 1/2 AB binding", "measuring", 0, 1, "rps")
	p.Logf("hello %d", 1)
	if strings.Contains(b.String(), "\r") || !strings.Contains(b.String(), "hello 1\n") {
		t.Errorf("non-TTY output: %q", b.String())
	}
	p = &Progress{w: &b, tty: true}
	b.Reset()
	p.Status("pair 3/10 AB binding", "measuring", 4100e6, 482113, "rps")
	if !strings.Contains(b.String(), "pair 3/10 AB binding  measuring 4.1s  482,113 rps") {
		t.Errorf("TTY line: %q", b.String())
	}
	b.Reset()
	p.Status("pair 1/2 AB fasthttp", "measuring", 1e9, 91234.6, "messages/s")
	if !strings.Contains(b.String(), "91,235 messages/s") {
		t.Errorf("TTY line: %q", b.String())
	}
}
