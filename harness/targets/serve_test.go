package targets

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/child"
	"github.com/bindrace/bindrace/harness/scenario"
)

// serveUntilReady runs Serve (`bindrace serve`) for name in the background and returns its
// ready line, with a function that cancels its context (what SIGTERM/SIGINT do) and returns
// Serve's error.
func serveUntilReady(t *testing.T, name string) (Ready, func() error) {
	t.Helper()
	tg, err := Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	out, errb := child.NewBuffer(), child.NewBuffer()
	code := make(chan error, 1)
	go func() { code <- Serve(ctx, tg, ServeOptions{Log: errb, Ready: out}) }()
	var r Ready
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		got, ok, err := ParseReady([]byte(out.String()))
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			r = got
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no ready line: %q %q", out.String(), errb.String())
		}
	}
	return r, func() error {
		cancel()
		select {
		case err := <-code:
			if err != nil {
				err = &serveError{err, errb.String()}
			}
			return err
		case <-time.After(5 * time.Second):
			t.Fatal("serve did not return")
			return nil
		}
	}
}

type serveError struct {
	err error
	log string
}

func (e *serveError) Error() string { return e.err.Error() + ": " + e.log }

// TestServeForeground runs Serve (`bindrace serve`) for a Go target and a cmd: target until its
// context is cancelled (what SIGTERM/SIGINT do), checking it said where it listens, served, and
// returned no error (exit 0) without leftovers.
func TestServeForeground(t *testing.T) {
	srv := writeScript(t, "hi.py", hiServer)
	for _, name := range []string{"nethttp", "cmd:python3 " + srv + " {port}"} {
		t.Run(name, func(t *testing.T) {
			r, stop := serveUntilReady(t, name)
			if r.Target != name || r.Pid == os.Getpid() || r.StartedMs <= 0 {
				t.Errorf("ready line %+v", r)
			}
			if err := Verify(context.Background(), name, "127.0.0.1:"+strconv.Itoa(r.Port), scenario.HTTP()[:1]); err != nil {
				t.Fatalf("port %d: %v", r.Port, err)
			}
			if err := stop(); err != nil {
				t.Errorf("serve: %v", err)
			}
			waitGone(t, r.Pid, "served process")
		})
	}
}

// A capped Go target is served in a cgroup of its own.
func TestServeCappedGoTarget(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: creating a cgroup needs root")
	}
	r, stop := serveUntilReady(t, "nethttp@cpu90")
	cg, _ := os.ReadFile("/proc/" + strconv.Itoa(r.Pid) + "/cgroup")
	if r.Pid == os.Getpid() || !strings.Contains(string(cg), "bindrace-"+strconv.Itoa(r.Pid)) {
		t.Errorf("ready %+v; its cgroup %q", r, cg)
	}
	if err := stop(); err != nil {
		t.Errorf("serve: %v", err)
	}
	waitGone(t, r.Pid, "served process")
}

func TestParseReady(t *testing.T) {
	var b strings.Builder
	if err := newReady("binding", 8080, 77, 12500*time.Microsecond).write(&b); err != nil {
		t.Fatal(err)
	}
	line := b.String()
	if line != `{"target":"binding","port":8080,"pid":77,"started_ms":12.5}`+"\n" {
		t.Errorf("ready line %q", line)
	}
	r, ok, err := ParseReady([]byte(line + "more output\n"))
	if !ok || err != nil || r != (Ready{Target: "binding", Port: 8080, Pid: 77, StartedMs: 12.5}) {
		t.Errorf("ParseReady = %+v, %v, %v", r, ok, err)
	}
	if _, ok, err := ParseReady([]byte(line[:10])); ok || err != nil {
		t.Errorf("half a line: %v, %v", ok, err)
	}
	for _, bad := range []string{"listening on :8080 (pid 77)\n", `{"port": 0, "pid": 1}` + "\n"} {
		if _, _, err := ParseReady([]byte(bad)); err == nil {
			t.Errorf("%q read as a ready line", bad)
		}
	}
}
