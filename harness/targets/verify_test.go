package targets

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/scenario"
)

// hiServer answers every GET with "hi" (testbin.HiServer).
const hiServer = testbin.HiServer

func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

func TestVerifyWrongServer(t *testing.T) {
	srv := writeScript(t, "hi.py", hiServer)
	tg, err := Resolve("cmd:python3 " + srv + " {port}")
	if err != nil {
		t.Fatal(err)
	}
	s := startT(t, tg, StartOptions{})
	err = Verify(context.Background(), "wrong", s.Addr(), scenario.HTTP())
	if err == nil {
		t.Fatal("a server answering only hi passed verification")
	}
	var ms []*Mismatch
	for _, e := range Mismatches(err) {
		var m *Mismatch
		if !errors.As(e, &m) {
			t.Fatalf("%v is not a *Mismatch", e)
		}
		ms = append(ms, m)
	}
	text := err.Error()
	for _, want := range []string{
		`target wrong, scenario params: body: expected "1 bun", got "hi"`,
		`target wrong, scenario params: header x-powered-by: expected "benchmark", got no x-powered-by header`,
		`target wrong, scenario json: status: expected 200, got 501`,
		`target wrong, scenario stream: content-type: expected "video/mp4", got "text/plain"`,
		`target wrong, scenario stream: body length: expected 14680064, got 2`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("mismatches do not include %q:\n%s", want, text)
		}
	}
	for _, m := range ms {
		if m.Scenario == "ping" {
			t.Errorf("ping should pass: %v", m)
		}
	}
}

func TestQuoteBodyTruncates(t *testing.T) {
	got := quoteBody(bytes.Repeat([]byte("x"), 1000))
	if len(got) > 260 || !strings.Contains(got, "(1000 bytes)") {
		t.Errorf("quoteBody = %q", got)
	}
}

func TestVerifyUnreachable(t *testing.T) {
	err := Verify(context.Background(), "gone", "127.0.0.1:1", scenario.HTTP()[:1])
	if err == nil || !strings.Contains(err.Error(), "target gone, scenario ping: response") {
		t.Fatalf("Verify = %v", err)
	}
}
