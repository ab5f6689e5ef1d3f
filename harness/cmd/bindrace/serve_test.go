package main

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/bindrace/bindrace/harness/targets"
)

// verify prints a line per check and exits 0 when every check passed, 2 on a bad argument.
func TestVerifyCommand(t *testing.T) {
	var out, errb bytes.Buffer
	code := verifyCommand([]string{"--target", "nethttp,fasthttp", "--scenario", "ping,params,json,ws-echo"}, &out, &errb)
	if code != 0 {
		t.Fatalf("verify = %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"ok    nethttp/ping", "ok    nethttp/json", "ok    fasthttp/params", "ok    nethttp/ws-echo", "ok    fasthttp/ws-echo"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, args := range [][]string{{}, {"--target", "nginx"}, {"--target", "nethttp", "--scenario", "nope"}} {
		if code := verifyCommand(args, &out, &errb); code != 2 {
			t.Errorf("verify %v = %d, want 2", args, code)
		}
	}
}

func TestServeCommandFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"--help"}, 0, "--target"},
		{[]string{"--bogus"}, 2, "bogus"},
		{[]string{}, 2, "--target is required"},
		{[]string{"--target", "nginx", "--port", "1"}, 2, "unknown target"},
		{[]string{"--target", "nethttp", "--port", "70000"}, 2, "--port"},
	} {
		var out, errb bytes.Buffer
		if code := serveCommand(c.args, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.say) {
			t.Errorf("serve %v = %d, %q; want %d and %q", c.args, code, errb.String(), c.code, c.say)
		}
	}
}

// serve listens on loopback unless --listen names another address, and says where in its ready
// line (issue 38: every target but the binding listened on every interface).
func TestServeListensOnLoopback(t *testing.T) {
	for _, c := range []struct {
		target string
		flags  []string
		want   string
	}{
		{"nethttp", nil, "127.0.0.1"},
		{"fasthttp", []string{"--listen", "0.0.0.0"}, "0.0.0.0"},
	} {
		srv := exec.Command(bin, append([]string{"serve", "--target", c.target, "--port", "0"}, c.flags...)...)
		out, err := srv.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadBytes('\n')
		ready, ok, perr := targets.ParseReady(line)
		if err != nil || !ok || perr != nil {
			t.Fatalf("%s: %q, %v %v", c.target, line, err, perr)
		}
		ss, _ := exec.Command("ss", "-Hltn", "sport = :"+strconv.Itoa(ready.Port)).Output()
		srv.Process.Signal(syscall.SIGTERM)
		srv.Wait()
		if f := strings.Fields(string(ss)); ready.Host != c.want || len(f) < 4 || f[3] != c.want+":"+strconv.Itoa(ready.Port) {
			t.Errorf("serve %s %v: ready line %q; listening: %q; want %s only", c.target, c.flags, line, ss, c.want)
		}
	}
	var errb bytes.Buffer
	if code := serveCommand([]string{"--target", "nethttp", "--listen", "localhost"}, io.Discard, &errb); code != 2 || !strings.Contains(errb.String(), "--listen") {
		t.Errorf("--listen localhost: exit %d, %q", code, errb.String())
	}
}
