package machine

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
)

const modulePath = "github.com/bindrace/bindrace"

// RepoRoot is the bindrace checkout the binaries, builds, Node modules, profiles, baselines and
// results live in: $BINDRACE_ROOT (the Makefile sets it), else the first directory holding
// bindrace's go.mod above the executable (bin/bindrace lives one level below it), else above
// the working directory (test binaries and `go run` live in a temporary directory).
func RepoRoot() (string, error) {
	if r := os.Getenv("BINDRACE_ROOT"); r != "" {
		return filepath.Abs(r)
	}
	var starts []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, dir := range starts {
		if r := FindRoot(dir); r != "" {
			return r, nil
		}
	}
	return "", errors.New("cannot find the bindrace checkout: set BINDRACE_ROOT or run from inside it")
}

// FindRoot is the nearest directory at or above start holding bindrace's go.mod, or "".
func FindRoot(start string) string {
	dir, err := filepath.Abs(start)
	if err != nil {
		return ""
	}
	for {
		if isBindraceModule(filepath.Join(dir, "go.mod")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// isBindraceModule checks the module line, so another project's go.mod on the way up is skipped.
func isBindraceModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`) == modulePath
		}
	}
	return false
}
