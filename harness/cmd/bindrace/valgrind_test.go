package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/testbin"
)

// TestRaceCountingBadValgrind: a race that counts under cachegrind with a valgrind that is
// missing, not executable, or crashes when it starts exits 2 before any pair runs, saying which.
func TestRaceCountingBadValgrind(t *testing.T) {
	cases := []struct{ kind, script string }{
		{kind: "missing"},
		{kind: "refused", script: "#!/bin/sh\necho valgrind-3.19.0\n"},
		{kind: "crashed on start-up", script: "#!/bin/sh\nkill -SEGV $$\n"},
	}
	for _, c := range cases {
		testbin.PathWithout(t, "taskset", "setarch") // no valgrind
		dir := os.Getenv("PATH")
		if c.script != "" {
			mode := os.FileMode(0o755)
			if c.kind == "refused" {
				mode = 0o644
			}
			if err := os.WriteFile(filepath.Join(dir, "valgrind"), []byte(c.script), mode); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(t.TempDir(), "race")
		r := cli(t, time.Minute, "race", "--a", "fasthttp", "--b", "nethttp", "--profile", "ci", "--counters", "cachegrind", "--out", out)
		if r.code != 2 || !strings.Contains(r.stderr, "--counters cachegrind: valgrind "+c.kind) {
			t.Errorf("valgrind %s: exit %d, want 2 and the kind named\n%s", c.kind, r.code, r.stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "summary.json")); strings.Contains(r.stderr, "pair 1/") || err == nil {
			t.Errorf("valgrind %s: a pair ran or a summary was written\n%s", c.kind, r.stderr)
		}
	}
}
