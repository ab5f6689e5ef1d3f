package targets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// What a target needs on a host follows from Resolve: a capped target needs its base's files,
// and a binary Resolve found under $BINDRACE_BIN goes to where Resolve looks on the host.
func TestForHost(t *testing.T) {
	dir := t.TempDir()
	for _, b := range []string{"binding-server", "binding-server-plain"} {
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("BINDRACE_BIN", dir)
	for name, rel := range map[string]string{
		"binding": "bin/binding-server", "binding@cpu95": "bin/binding-server",
		"binding-static": "bin/binding-server", "binding-plain@cpu50": "bin/binding-server-plain",
	} {
		tg, err := Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		n, err := tg.ForHost()
		if err != nil || len(n.Files) != 1 || n.Files[0].Rel != rel || filepath.Dir(n.Files[0].Local) != dir || n.NodeMajor != 0 {
			t.Errorf("%s: %+v, %v; want %s from %s", name, n, err, rel, dir)
		}
	}
	// The Go targets run from go-server, wherever this harness found it.
	for _, name := range []string{"fasthttp", "nethttp@cpu90"} {
		tg, _ := Resolve(name)
		if n, err := tg.ForHost(); err != nil || len(n.Files) != 1 || n.Files[0].Rel != filepath.Join("bin", "go-server") {
			t.Errorf("%s: %+v, %v; want bin/go-server", name, n, err)
		}
	}
	tg, _ := Resolve("cmd:my-server --port {port}")
	if _, err := tg.ForHost(); err == nil {
		t.Error("a cmd: target runs on another host")
	}
}

func TestForHostUWS(t *testing.T) {
	tg, err := Resolve("uws@cpu95")
	if err != nil {
		t.Fatalf("uws not installed (scripts/setup.sh installs it): %v", err)
	}
	n, err := tg.ForHost()
	if err != nil || len(n.Files) != 1 || n.Files[0].Rel != filepath.Join("harness", "targets", "uws") || n.NodeMajor != 20 {
		t.Errorf("uws: %+v, %v", n, err)
	}
}

// TestNodePreloadTravels: node starts with --require on the preload, a file of the tree another
// host is sent (ForHost), so a uws server runs the same way there; the directory its threads
// listen in reaches it through the environment, and only when there is one.
func TestNodePreloadTravels(t *testing.T) {
	tg, err := Resolve("uws")
	if err != nil {
		t.Fatalf("uws not installed (scripts/setup.sh installs it): %v", err)
	}
	n, err := tg.ForHost()
	if err != nil {
		t.Fatal(err)
	}
	argv, env, err := tg.command(8080, StartOptions{nodeDir: "/tmp/bindrace-node-1"})
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(argv, "--require")
	if i < 0 || i+2 >= len(argv) || filepath.Dir(argv[i+1]) != n.Files[0].Local {
		t.Fatalf("argv %q: want --require on a file of %s before the server", argv, n.Files[0].Local)
	}
	if _, err := os.Stat(argv[i+1]); err != nil {
		t.Errorf("the preload: %v", err)
	}
	if !slices.Contains(env, NodeMetricsEnv+"=/tmp/bindrace-node-1") {
		t.Errorf("env %q", env)
	}
	if _, env, _ = tg.command(8080, StartOptions{}); slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, NodeMetricsEnv) }) {
		t.Errorf("no directory, yet env %q", env)
	}
}
