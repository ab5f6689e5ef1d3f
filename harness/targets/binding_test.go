package targets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/scenario"
)

// TestBindingTargets verifies the binding servers when they are built (make build / make
// build-plain); otherwise each subtest names the missing binary.
func TestBindingTargets(t *testing.T) {
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for name, bin := range map[string]string{
		"binding": "binding-server", "binding-static": "binding-server", "binding-ownp": "binding-server",
		"binding-plain": "binding-server-plain", "binding-uring": "binding-server", "binding-static-uring": "binding-server",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(root, "bin", bin)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("skipping: %s is not built (run make build / make build-plain)", path)
			}
			tg, err := Resolve(name)
			if err != nil {
				t.Fatal(err)
			}
			s := startT(t, tg, StartOptions{Threads: 1})
			if err := Verify(context.Background(), name, s.Addr(), scenario.HTTP()); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Info(); err != nil {
				t.Error(err)
			}
			if p, n, err := tg.Artifact(); err != nil || p != path || n <= 0 {
				t.Errorf("artifact %s %d %v", p, n, err)
			}
			if err := s.Stop(); err != nil {
				t.Errorf("Stop: %v", err)
			}
			waitGone(t, s.Pid, name)
		})
	}
}

// TestBindingCommandLine runs a stand-in bin/binding-server under a fake BINDRACE_ROOT to check
// the flags each binding target passes and the missing-binary message.
func TestBindingCommandLine(t *testing.T) {
	root := t.TempDir()
	t.Setenv("BINDRACE_ROOT", root)
	if _, err := Resolve("binding"); err == nil || !strings.Contains(err.Error(), "run `make build`") {
		t.Fatalf("Resolve(binding) without the binary = %v", err)
	}
	if _, err := Resolve("binding-plain"); err == nil || !strings.Contains(err.Error(), "run `make build-plain`") {
		t.Fatalf("Resolve(binding-plain) without the binary = %v", err)
	}
	hi := writeScript(t, "hi.py", hiServer)
	argsFile := filepath.Join(root, "args")
	os.MkdirAll(filepath.Join(root, "bin"), 0o755)
	stub := "#!/bin/sh\necho \"$@\" $BINDRACE_LOOP > " + argsFile + "\nexec python3 " + hi + " \"$2\"\n"
	os.WriteFile(filepath.Join(root, "bin", "binding-server"), []byte(stub), 0o755)
	for name, want := range map[string]string{
		"binding":              "--port %d --threads 2\n",
		"binding-static":       "--port %d --static --threads 2\n",
		"binding-ownp":         "--port %d --own-p --threads 2\n",
		"binding-uring":        "--port %d --threads 2 uring\n",
		"binding-static-uring": "--port %d --static --threads 2 uring\n",
	} {
		tg, err := Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		s := startT(t, tg, StartOptions{Threads: 2})
		got, _ := os.ReadFile(argsFile)
		if string(got) != fmt.Sprintf(want, s.Port) {
			t.Errorf("%s got args %q, want %q", name, got, fmt.Sprintf(want, s.Port))
		}
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	}
}
