package counters

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/targets"
)

// cachegrindTarget picks the smallest real target to run under valgrind: binding-static when
// bin/binding-server is built, else fasthttp (this test binary re-run as the server).
func cachegrindTarget(t *testing.T) *targets.Target {
	t.Helper()
	installed(t, "valgrind", "valgrind")
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
