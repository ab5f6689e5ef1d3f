package targets

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
)

// alive reports whether pid is a running process; a zombie counts as dead (it runs nothing, and
// in a container nobody may reap it).
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(s[i+1:], " Z")
}

// waitGone fails the test when pid is still running a second after it should have died.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Errorf("%s (pid %d) is still running", what, pid)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startUWS starts the uws target under node for a test, returning it and its server, and stops
// it when the test ends. Without the target's node_modules the test fails, naming the missing
// directory: scripts/setup.sh (which make test runs first) installs them, so their absence is a
// broken set-up, not a machine that lacks something.
func startUWS(t *testing.T, o StartOptions) (*Target, *Server) {
	t.Helper()
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	mods := filepath.Join(root, "harness", "targets", "uws", "node_modules", upstreamPackage)
	if _, err := os.Stat(mods); err != nil {
		t.Fatalf("%s is missing: scripts/setup.sh installs it (npm ci in harness/targets/uws)", mods)
	}
	tg, err := Resolve("uws")
	if err != nil {
		t.Fatal(err)
	}
	return tg, startT(t, tg, o)
}

// startT starts a target for a test and stops it when the test ends.
func startT(t *testing.T, tg *Target, o StartOptions) *Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s, err := tg.Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

// writeScript writes a test helper file and returns its path.
func writeScript(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
