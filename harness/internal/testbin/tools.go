package testbin

import (
	"os/exec"
	"strings"
	"testing"
)

// Installed returns tool's path, and fails the test where it is missing: scripts/setup.sh, which
// make test runs first, installs it from Debian's package pkg, so a missing tool is a set-up
// fault to report, never a reason to skip.
func Installed(t *testing.T, tool, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		t.Fatalf("%s is not installed: scripts/setup.sh installs it (Debian package %s)", tool, pkg)
	}
	return path
}

// TracepointsCounted fails the test where the system calls were not counted for want of tracefs
// (scripts/setup.sh mounts it), and skips it only where this machine refuses the tracepoints
// (no permission on tracefs, perf_event_paranoid): why is the probe's reason, "" when counted.
func TracepointsCounted(t *testing.T, why string) {
	t.Helper()
	switch {
	case why == "":
	case strings.Contains(why, "no tracefs mounted"), strings.Contains(why, "no tracepoint"):
		t.Fatalf("system calls not counted: %s (scripts/setup.sh mounts tracefs)", why)
	default:
		t.Skipf("this machine refuses the tracepoints: %s", why)
	}
}
