package measure

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
)

// dyingServer answers its start's GET / as a scenario server, then cuts the next connection
// and exits 300 ms later: the verification's request fails before the exit is known.
const dyingServer = `import http.server, os, sys, threading
class Handler(http.server.BaseHTTPRequestHandler):
    answered = 0
    def do_GET(self):
        if Handler.answered == 0:
            Handler.answered = 1
            self.send_response(200)
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"hi")
            return
        self.close_connection = True
        self.connection.close()
        threading.Timer(0.3, lambda: os._exit(3)).start()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
`

// A server that dies as its verification runs is reported as dead, with its exit, not as a
// target that failed verification over a cut connection: in the preflight and in a run.
func TestServerDiesDuringVerification(t *testing.T) {
	python := testbin.Installed(t, "python3", "python3")
	script := filepath.Join(t.TempDir(), "dying.py")
	if err := os.WriteFile(script, []byte(dyingServer), 0o644); err != nil {
		t.Fatal(err)
	}
	target := "cmd:" + python + " " + script + " {port}"
	p := profile.Default()
	p.Windows, p.Warmup, p.Duration, p.Settle, p.Cooldown, p.BusySample = 1, 0, profile.Duration(100*time.Millisecond), 0, 0, 0
	pl, err := NewPlan(&p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRig(Config{Plan: pl, Targets: []string{target}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	sc, _ := scenario.ByName("ping")
	err = r.Preflight(context.Background(), []string{target}, []scenario.Scenario{sc})
	if err == nil || !strings.Contains(err.Error(), "exited during verification") || !strings.Contains(err.Error(), "status 3") {
		t.Errorf("preflight: %v; want the server's exit during verification, with its status", err)
	}
	_, err = r.Run(context.Background(), Spec{Target: target, Scenario: sc, Connections: 1, Pipelining: 1, Label: "dying"})
	if err == nil || !strings.Contains(err.Error(), "exited during verification") || !strings.Contains(err.Error(), "status 3") {
		t.Errorf("run: %v; want the server's exit during verification, with its status", err)
	}
}
