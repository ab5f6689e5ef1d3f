package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestCountersCommandErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "--mode"},
		{[]string{}, 2, "--target is required"},
		{[]string{"--target", "nope"}, 2, `unknown target "nope"`},
		{[]string{"--target", "fasthttp", "--scenario", "nope"}, 2, `unknown scenario "nope"`},
		{[]string{"--target", "fasthttp", "--mode", "x"}, 2, "unknown --mode"},
		{[]string{"--target", "fasthttp", "--bogus"}, 2, "unknown flag"},
		{[]string{"--target", "fasthttp", "--cpus-server", "99"}, 2, "CPU 99"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := countersCommand(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String()+errb.String(), c.want) {
			t.Errorf("%v: exit %d (want %d), stdout %q stderr %q, want %q", c.args, code, c.code, out.String(), errb.String(), c.want)
		}
	}
}

func TestCountersCommandValgrindMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	code := countersCommand([]string{"--target", "fasthttp", "--mode", "cachegrind", "--n", "10", "--cpus-client", "none"}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "run scripts/setup.sh") {
		t.Errorf("exit %d stderr %q", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("stdout %q", out.String())
	}
}
