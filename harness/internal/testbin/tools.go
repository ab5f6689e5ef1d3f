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

// HiServer is a Python server for `python3 FILE PORT` that answers every GET on 127.0.0.1 with
// "hi" and nothing else: it starts like a scenario server (GET / is what readiness asks) and
// serves no scenario, so tests of starting, verifying and refusing use it.
const HiServer = `import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        b = b"hi"
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
    def log_message(self, *a):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
`
