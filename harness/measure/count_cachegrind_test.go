package measure

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/targets"
)

// counterOf is the counting runs of a rig over target alone, its server on cpus, its output in
// log.
func counterOf(t *testing.T, target, cpus string, log io.Writer) Counter {
	t.Helper()
	// Warnings go to log beside the servers' output, so a test reads both.
	warn := func(e Event) {
		if n, ok := e.(Note); ok && n.Warning && log != nil {
			fmt.Fprintf(log, "warning: %s\n", n.Text)
		}
	}
	r, err := NewRig(Config{Plan: Plan{Method: profile.Method{CPUsServer: cpus}, StartTimeout: 30 * time.Second}, Targets: []string{target}, ServerLog: log, Events: warn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r.Counter()
}

// cachegrindTarget picks the smallest real target to run under valgrind: binding-static when
// bin/binding-server is built, else fasthttp (this test binary re-run as the server).
func cachegrindTarget(t *testing.T) *targets.Target {
	t.Helper()
	testbin.Installed(t, "valgrind", "valgrind")
	if root, err := machine.RepoRoot(); err == nil {
		bin := filepath.Join(root, "bin", "binding-server")
		if _, err := os.Stat(bin); err == nil {
			tg, err := targets.Resolve("binding-static")
			if err != nil {
				t.Fatal(err)
			}
			return tg
		}
		t.Logf("%s not built: using fasthttp", bin)
	}
	tg, err := targets.Resolve("fasthttp")
	if err != nil {
		t.Fatal(err)
	}
	return tg
}
