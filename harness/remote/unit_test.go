package remote

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParseHost(t *testing.T) {
	good := map[string]Host{
		"bench1":                  {Name: "bench1"},
		"root@10.213.47.10":       {User: "root", Name: "10.213.47.10"},
		"ci-user@host.example:22": {User: "ci-user", Name: "host.example", Port: 22},
		"box:2222":                {Name: "box", Port: 2222},
		"fd00::2":                 {Name: "fd00::2"},
		"u@[fd00::2]:2200":        {User: "u", Name: "fd00::2", Port: 2200},
		"[::1]":                   {Name: "::1"},
	}
	for spec, want := range good {
		got, err := ParseHost(spec)
		if err != nil || got != want {
			t.Errorf("ParseHost(%q) = %+v, %v; want %+v", spec, got, err, want)
			continue
		}
		if back, err := ParseHost(got.String()); err != nil || back != got {
			t.Errorf("ParseHost(%q.String() = %q) = %+v, %v", spec, got.String(), back, err)
		}
	}
	bad := map[string]string{
		"":                "empty",
		"host name":       "space",
		"host\tx":         "space",
		"root@":           "empty host name",
		"@host":           "empty user",
		"host:":           "empty port",
		"host:0":          "port",
		"host:65536":      "port",
		"host:22x":        "port",
		"-oProxyCommand=": "starts with '-'",
		"-l@host":         "user starts with '-'",
		"ho/st":           "contains",
		"[fd00::2":        "unclosed",
		"[10.0.0.1]:22":   "not an IPv6",
		"[::1]x":          "after ]",
		"a:b:c":           "too many colons",
		"us er@host":      "space",
	}
	for spec, want := range bad {
		_, err := ParseHost(spec)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "[user@]host[:port]") {
			t.Errorf("ParseHost(%q) = %v; want an error about %q", spec, err, want)
		}
	}
}

func TestParseHosts(t *testing.T) {
	hs, err := ParseHosts("a, root@b:2222 ,c")
	if err != nil || len(hs) != 3 || hs[1] != (Host{User: "root", Name: "b", Port: 2222}) {
		t.Fatalf("ParseHosts = %+v, %v", hs, err)
	}
	for _, list := range []string{"", " ", "a,,b", "a,a", "a,b c"} {
		if _, err := ParseHosts(list); err == nil {
			t.Errorf("ParseHosts(%q) accepted", list)
		}
	}
}

func TestClassify(t *testing.T) {
	h := Host{User: "root", Name: "10.213.47.99"}
	cases := []struct {
		code   int
		stderr string
		want   error
	}{
		{255, "ssh: connect to host 10.213.47.99 port 22: No route to host\r\n", ErrUnreachable},
		{255, "ssh: connect to host 10.213.47.99 port 22: Connection timed out\n", ErrUnreachable},
		{255, "ssh: connect to host x port 22: Connection refused\n", ErrUnreachable},
		{255, "ssh: Could not resolve hostname nohost: Name or service not known\n", ErrUnreachable},
		{255, "root@10.213.47.10: Permission denied (publickey).\n", ErrAuth},
		{255, "Host key verification failed.\n", ErrHostKey},
		{255, "Timeout, server 10.213.47.22 not responding.\n", ErrLost},
		{255, "Connection to 10.213.47.22 closed by remote host.\n", ErrLost},
		{255, "/tmp/cfg line 3: Bad configuration option: foo\n", ErrSSH},
		{255, "", ErrCommand}, // the remote command exited 255 silently
		{2, "ls: cannot access 'x': No such file or directory\n", ErrCommand},
	}
	for _, c := range cases {
		e := newError(h, "run x", c.code, c.stderr)
		if !errors.Is(e, c.want) {
			t.Errorf("newError(%d, %q) kind %v; want %v", c.code, c.stderr, e.Kind, c.want)
		}
		if !strings.Contains(e.Error(), "host root@10.213.47.99: run x") {
			t.Errorf("error %q does not name host and operation", e)
		}
	}
	e := newError(h, "run x", 3, "one\ntwo\n\nthree\n")
	if e.ExitCode != 3 || !strings.HasSuffix(e.Error(), "command failed (exit status 3): one | two | three") {
		t.Errorf("command error %q", e)
	}
}

func TestQuote(t *testing.T) {
	for _, s := range []string{"plain", "", "a b", "it's", `"$HOME"`, "`id`", "a\nb", "*", "-n", "x;y|z&"} {
		out, err := exec.Command("sh", "-c", "printf %s "+Quote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh printf %s = %q, %v; want %q", Quote(s), out, err, s)
		}
	}
	if got := Command("echo", "a b", "c"); got != "echo 'a b' c" {
		t.Errorf("Command = %q", got)
	}
}

// rsync's itemized changes: a file whose content was sent, one whose mode alone was set, a
// directory, a symlink and deletions; names with spaces.
func TestItemized(t *testing.T) {
	out := "<f+++++++++ 350000 bin/server bin\n.f...p..... 12 sub/a b.txt\ncd+++++++++ 4096 sub/\n" +
		"cL+++++++++ 11 link\n<fc........ 7 x.js\n*deleting   0 old/a b.js\n*deleting   0 old/\n.d..t...... 4096 ./\n"
	r := CopyResult{Path: "/tmp/d", Files: 5}
	if err := r.itemized([]byte(out)); err != nil {
		t.Fatal(err)
	}
	if want := (CopyResult{Path: "/tmp/d", Files: 5, Copied: 3, Skipped: 2, Removed: 2, Bytes: 350007}); r != want {
		t.Errorf("itemized = %+v, want %+v", r, want)
	}
	if err := (&CopyResult{}).itemized([]byte("<f+++++++++ many x\n")); err == nil {
		t.Error("a size that is not a number was read")
	}
}

func TestCheckRelative(t *testing.T) {
	for _, ok := range []string{"bindrace", "uws/node_modules", "a.b"} {
		if err := checkRelative(ok); err != nil {
			t.Errorf("checkRelative(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "/etc", "../x", "a/../../x", ".", "..", "a//b", ".bindrace-session", "x/"} {
		if err := checkRelative(bad); err == nil {
			t.Errorf("checkRelative(%q) accepted", bad)
		}
	}
}

func TestProcessSpecCheck(t *testing.T) {
	ok := ProcessSpec{Name: "server", Argv: []string{"sleep", "1"}, Env: []string{"PORT=1", "X="}, Dir: "/tmp"}
	if err := ok.check(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []ProcessSpec{
		{Name: "", Argv: []string{"x"}},
		{Name: "a b", Argv: []string{"x"}},
		{Name: "s"},
		{Name: "s", Argv: []string{""}},
		{Name: "s", Argv: []string{"x"}, Env: []string{"NOEQUALS"}},
		{Name: "s", Argv: []string{"x"}, Env: []string{"1X=2"}},
		{Name: "s", Argv: []string{"x"}, Env: []string{"BINDRACE_PROC=other"}},
		{Name: "s", Argv: []string{"x"}, Dir: "relative"},
	} {
		if err := bad.check(); err == nil {
			t.Errorf("spec %+v accepted", bad)
		}
	}
}

func TestNewSessionOptions(t *testing.T) {
	r, err := NewRunner(Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.NewSession(SessionOptions{})
	if err != nil || !strings.HasPrefix(s.Dir, "/tmp/bindrace-") || s.Path("x") != s.Dir+"/x" {
		t.Fatalf("default session: %+v, %v", s, err)
	}
	for _, o := range []SessionOptions{
		{ID: "a b"}, {ID: "../x"}, {ID: ".."}, {ID: strings.Repeat("x", 65)},
		{BaseDir: "relative"},
		{Heartbeat: 5 * time.Second, Silence: 5 * time.Second},
	} {
		if _, err := r.NewSession(o); err == nil {
			t.Errorf("NewSession(%+v) accepted", o)
		}
	}
	if _, err := NewRunner(Options{ConfigFile: "/nonexistent/ssh_config"}); err == nil {
		t.Error("missing config file accepted")
	}
	if _, err := NewRunner(Options{PathPrepend: []string{"/a:/b"}}); err == nil {
		t.Error("PathPrepend entry with ':' accepted")
	}
}

func TestStartAt(t *testing.T) {
	at := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	s := FormatStartAt(at)
	back, err := ParseStartAt(s)
	if err != nil || !back.Equal(at) {
		t.Fatalf("ParseStartAt(%q) = %v, %v", s, back, err)
	}
	if _, err := ParseStartAt("soon"); err == nil {
		t.Error("ParseStartAt(soon) accepted")
	}
	if err := SleepUntil(context.Background(), time.Now().Add(-time.Second)); err == nil || !strings.Contains(err.Error(), "passed") {
		t.Errorf("SleepUntil(past) = %v", err)
	}
	t0 := time.Now()
	if err := SleepUntil(context.Background(), t0.Add(30*time.Millisecond)); err != nil || time.Since(t0) < 30*time.Millisecond {
		t.Errorf("SleepUntil(+30ms) = %v after %s", err, time.Since(t0))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SleepUntil(ctx, time.Now().Add(time.Hour)); !errors.Is(err, context.Canceled) {
		t.Errorf("SleepUntil(cancelled) = %v", err)
	}
	p := &StartPlan{At: at, Offsets: map[string]time.Duration{"h1": time.Second}}
	if !p.On(Host{Name: "h1"}).Equal(at.Add(time.Second)) || !p.On(Host{Name: "h2"}).Equal(at) {
		t.Errorf("On: %v %v", p.On(Host{Name: "h1"}), p.On(Host{Name: "h2"}))
	}
}
