package counters

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Why valgrind cannot count here: the three are told apart because each has another remedy
// (install it, fix its permissions, fix or reinstall it).
const (
	ValgrindMissing = "missing"
	ValgrindRefused = "refused"
	ValgrindCrashed = "crashed on start-up"
)

// ValgrindError is bad input of a counting run: the valgrind it would use cannot run.
type ValgrindError struct {
	Kind   string // ValgrindMissing, ValgrindRefused or ValgrindCrashed
	Path   string // what was looked for or run
	Detail string
}

func (e *ValgrindError) Error() string {
	hint := map[string]string{
		ValgrindMissing: "install it (scripts/setup.sh does)",
		ValgrindRefused: "it exists but cannot be executed: check its permissions",
		ValgrindCrashed: "it started and failed: reinstall it or run it by hand to see why",
	}[e.Kind]
	return fmt.Sprintf("valgrind %s (%s): %s; %s", e.Kind, e.Path, e.Detail, hint)
}

// checkValgrind finds valgrind (a path, or a name on PATH) and runs its --version: the
// executable's path, or a *ValgrindError.
func checkValgrind(ctx context.Context, valgrind string) (string, error) {
	path, err := exec.LookPath(valgrind)
	if err != nil {
		// LookPath passes over a file on PATH that is not executable: that one is refused,
		// not missing.
		if found := onPath(valgrind); found != "" {
			return "", &ValgrindError{Kind: ValgrindRefused, Path: found, Detail: "not executable"}
		}
		kind := ValgrindMissing
		if errors.Is(err, fs.ErrPermission) {
			kind = ValgrindRefused
		}
		return "", &ValgrindError{Kind: kind, Path: valgrind, Detail: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	switch {
	case errors.Is(err, fs.ErrPermission):
		return "", &ValgrindError{Kind: ValgrindRefused, Path: path, Detail: err.Error()}
	case err != nil:
		return "", &ValgrindError{Kind: ValgrindCrashed, Path: path,
			Detail: fmt.Sprintf("%s --version: %v: %s", path, err, strings.TrimSpace(string(out)))}
	}
	return path, nil
}

// onPath is the first file called name in PATH's directories, "" when there is none.
func onPath(name string) string {
	if strings.Contains(name, "/") {
		return ""
	}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() {
			return filepath.Join(dir, name)
		}
	}
	return ""
}
