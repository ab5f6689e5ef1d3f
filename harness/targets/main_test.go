package targets

import (
	"os"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/testbin"
)

// The Go targets run as go-server processes, built for these tests by testbin.
func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

// The Go targets' definitions take the go-server testbin builds from the variable it sets.
func TestGoServerEnv(t *testing.T) {
	for _, name := range []string{"fasthttp", "nethttp"} {
		d, ok, err := lookup(name)
		if !ok || err != nil || d.Start.OverrideEnv != testbin.GoServerEnv {
			t.Fatalf("%s: override_env %q (%v), testbin sets $%s", name, d.Start.OverrideEnv, err, testbin.GoServerEnv)
		}
	}
}
