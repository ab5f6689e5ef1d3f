package targets

import (
	"os"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/testbin"
)

// The Go targets run as go-server processes, built for these tests by testbin.
func TestMain(m *testing.M) { os.Exit(testbin.Run(m)) }

func TestGoServerEnv(t *testing.T) {
	if goServerEnv != testbin.GoServerEnv {
		t.Fatalf("targets looks in $%s, testbin sets $%s", goServerEnv, testbin.GoServerEnv)
	}
}
