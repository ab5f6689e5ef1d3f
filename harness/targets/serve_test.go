package targets

import (
	"context"
	"os"
	"path/filepath"
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
	if err := newReady("binding", "127.0.0.1", 8080, 77, 12500*time.Microsecond).write(&b); err != nil {
		t.Fatal(err)
	}
	line := b.String()
	if line != `{"target":"binding","host":"127.0.0.1","port":8080,"pid":77,"started_ms":12.5}`+"\n" {
		t.Errorf("ready line %q", line)
	}
	r, ok, err := ParseReady([]byte(line + "more output\n"))
	if !ok || err != nil || r != (Ready{Target: "binding", Host: "127.0.0.1", Port: 8080, Pid: 77, StartedMs: 12.5}) {
		t.Errorf("ParseReady = %+v, %v, %v", r, ok, err)
	}
	if _, ok, err := ParseReady([]byte(line[:10])); ok || err != nil {
		t.Errorf("half a line: %v, %v", ok, err)
	}
	for _, f := range readySeeds(t) {
		if _, ok, err := ParseReady(f); !ok || err != nil {
			t.Errorf("real ready line %q: %v, %v", f, ok, err)
		}
	}
}

// Each class of bad ready line is refused naming its field: made from real lines (testdata)
// with one field spoiled.
func TestParseReadyRefuses(t *testing.T) {
	for _, c := range []struct{ line, say string }{
		{"listening on :8080 (pid 77)\n", "not JSON"},
		{`{"target":"fasthttp","port":33303,"pid":28999,"started_ms":306.4` + "\n", "truncated"},
		{`{"target":"fasthttp","port":0,"pid":28999}` + "\n", "port 0"},
		{`{"target":"fasthttp","port":70000,"pid":28999}` + "\n", "port 70000"},
		{`{"target":"fasthttp","port":33303,"pid":-4}` + "\n", "pid -4"},
		{`{"target":"fasthttp","port":33303,"pid":1}` + "\n", "pid 1"},
		{`{"target":"","port":33303,"pid":28999}` + "\n", "target"},
		{`{"port":33303,"pid":28999}` + "\n", "target"},
		{`{"target":"fasthttp","port":33303,"pid":28999,"started_ms":-1}` + "\n", "started_ms"},
		{`{"target":"fasthttp","port":33303,"pid":28999,"started_ms":1e300}` + "\n", "started_ms"},
		{`{"target":"fasthttp","port":"33303","pid":28999}` + "\n", `field "port"`},
		{`{"target":"fasthttp","host":"every","port":33303,"pid":28999}` + "\n", "host"},
		{`{"target":"fasthttp","port":33303,"pid":28999,"prot":1}` + "\n", "unknown field"},
		{`{"target":"fasthttp","port":33303,"pid":28999} {"port":1}` + "\n", "a second JSON value"},
		{strings.Repeat("x", maxReadyLine+1), "without a newline"},
	} {
		_, ok, err := ParseReady([]byte(c.line))
		if ok || err == nil || !strings.Contains(err.Error(), c.say) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.60q: ok %v, error %v; want one line saying %q", c.line, ok, err, c.say)
		}
	}
}

// readySeeds are the ready lines real `bindrace serve`s printed (testdata/ready-*.txt): the
// binding, fasthttp and uws on loopback, nethttp with --listen 0.0.0.0, and a line from before
// the host field.
func readySeeds(t testing.TB) [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "ready-*.txt"))
	if len(files) == 0 {
		t.Fatal("no testdata/ready-*.txt")
	}
	var seeds [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	return seeds
}

// FuzzParseReady: no input panics; a line accepted holds sane values (Check) and survives
// encode and decode unchanged.
func FuzzParseReady(f *testing.F) {
	for _, s := range readySeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		r, ok, err := ParseReady(out)
		if !ok || err != nil {
			return
		}
		if err := r.Check(); err != nil {
			t.Fatalf("accepted %+v: %v", r, err)
		}
		var b strings.Builder
		if err := r.write(&b); err != nil {
			t.Fatal(err)
		}
		back, ok, err := ParseReady([]byte(b.String()))
		if !ok || err != nil || back != r {
			t.Fatalf("round trip: %+v became %+v (%v, %v)", r, back, ok, err)
		}
	})
}
