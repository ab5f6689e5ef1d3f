package counters

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/testbin"
)

// TestValgrindCPUBadInput: a valgrind that is not there, cannot be executed, or fails when it
// starts is told apart (each has its own remedy), found by name on PATH as counting finds it.
func TestValgrindCPUBadInput(t *testing.T) {
	cases := []struct {
		name, script string
		mode         os.FileMode
		kind         string
	}{
		{name: "missing", kind: ValgrindMissing},
		{name: "not executable", script: "#!/bin/sh\necho valgrind-3.19.0\n", mode: 0o644, kind: ValgrindRefused},
		{name: "killed by a signal at --version", script: "#!/bin/sh\nkill -SEGV $$\n", mode: 0o755, kind: ValgrindCrashed},
		// --version answers, running a program does not: the probe finds it.
		{name: "crashes running a program", script: "#!/bin/sh\n[ \"$1\" = --version ] && exec echo valgrind-3.19.0\nkill -SEGV $$\n", mode: 0o755, kind: ValgrindCrashed},
	}
	for _, c := range cases {
		dir := t.TempDir()
		if c.script != "" {
			if err := os.WriteFile(filepath.Join(dir, "valgrind"), []byte(c.script), c.mode); err != nil {
				t.Fatal(err)
			}
		}
		// PATH is dir alone, with setarch, which the probe runs valgrind under.
		setarch := testbin.Installed(t, "setarch", "util-linux")
		if err := os.Symlink(setarch, filepath.Join(dir, "setarch")); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", dir)
		_, err := ValgrindCPU(context.Background(), "valgrind")
		var ve *ValgrindError
		if !errors.As(err, &ve) || ve.Kind != c.kind || !strings.Contains(err.Error(), "valgrind "+c.kind) {
			t.Errorf("%s: err = %v, want a ValgrindError %q", c.name, err, c.kind)
		}
	}
}

// TestValgrindCPU plans this machine under its real valgrind: the guest's view comes from the
// probe run under valgrind, and every feature it hides is one the guest saw and the host lacks,
// switched off in the counted server's environment.
func TestValgrindCPU(t *testing.T) {
	testbin.Installed(t, "valgrind", "valgrind")
	p, err := ValgrindCPU(context.Background(), "valgrind")
	if err != nil {
		t.Fatal(err)
	}
	c := p.CPU
	t.Logf("host %s %s; guest %s %v; hidden %v; env %v", c.Vendor, c.Model, c.GuestVendor, c.GuestFeatures, c.Hidden, p.Env)
	if len(c.GuestVendor) != 12 || !slices.Contains(c.GuestFeatures, "pni") {
		t.Errorf("guest view %s %v: want a 12-byte vendor and SSE3 (pni), which valgrind always shows", c.GuestVendor, c.GuestFeatures)
	}
	for _, h := range c.Hidden {
		if !slices.Contains(c.GuestFeatures, h) || slices.Contains(c.Flags, h) {
			t.Errorf("hidden %s: not a guest feature the host lacks (guest %v)", h, c.GuestFeatures)
		}
	}
	if (len(c.Hidden) > 0) != (len(p.Env) > 0) {
		t.Errorf("hidden %v but environment %v", c.Hidden, p.Env)
	}
	if slices.Contains(c.Hidden, "rdtscp") && !slices.ContainsFunc(p.Env, func(e string) bool {
		return strings.HasPrefix(e, "GODEBUG=") && strings.Contains(e, "cpu.rdtscp=off")
	}) {
		t.Errorf("rdtscp hidden, but no GODEBUG cpu.rdtscp=off in %v", p.Env)
	}
}
