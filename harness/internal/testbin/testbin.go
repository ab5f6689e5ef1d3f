// Package testbin builds the harness's Go target server (harness/cmd/go-server) for a package's
// tests, so they start the servers of the source under test without `make build`, and without a
// test binary ever becoming a server itself.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/machine"
)

// GoServerEnv is where harness/targets looks for the go-server binary before bin/ (its
// the Go targets' override_env; a test there holds the two equal).
const GoServerEnv = "BINDRACE_GO_SERVER"

// BuildGoServer builds go-server into dir and points $BINDRACE_GO_SERVER at it.
func BuildGoServer(dir string) (string, error) {
	root := machine.FindRoot(".")
	if root == "" {
		return "", fmt.Errorf("testbin: the working directory is not inside a bindrace checkout")
	}
	path := filepath.Join(dir, "go-server")
	build := exec.Command("go", "build", "-o", path, "./harness/cmd/go-server")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("testbin: building go-server: %v\n%s", err, out)
	}
	return path, os.Setenv(GoServerEnv, path)
}

// Run is a TestMain's body for tests that start the Go targets: it builds go-server into a
// temporary directory, runs the tests and removes the build; it returns the exit status.
func Run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "bindrace-testbin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if _, err := BuildGoServer(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// PathWithout sets PATH, for the rest of t, to a directory holding only the tools given
// (linked from where PATH finds them now): a machine that lacks every other, perf for one.
func PathWithout(t *testing.T, keep ...string) {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range keep {
		if p, err := exec.LookPath(tool); err == nil {
			if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Setenv("PATH", dir)
}
