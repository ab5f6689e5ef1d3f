package main

import (
	"bytes"
	"strings"
	"testing"
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
