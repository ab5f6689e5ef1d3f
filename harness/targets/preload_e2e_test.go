//go:build long

package targets

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/child"
	"github.com/bindrace/bindrace/harness/scenario"
)

// TestPreloadReachesWorkers: node runs the preload with --require, and a Worker inherits
// execArgv, so with THREADS=2 both the main thread (0) and the worker thread (1) answer on
// their sockets with their own figures; the directory goes with the server.
func TestPreloadReachesWorkers(t *testing.T) {
	_, s := startUWS(t, StartOptions{Threads: 2})
	if s.Node == nil || s.Node.Err != nil || s.Node.Dir == "" {
		t.Fatalf("node runtime %+v", s.Node)
	}
	for thread := range 2 {
		sock := filepath.Join(s.Node.Dir, []string{"0", "1"}[thread]+".sock")
		c, err := net.DialTimeout("unix", sock, 2*time.Second)
		if err != nil {
			t.Fatalf("thread %d: %v", thread, err)
		}
		c.SetDeadline(time.Now().Add(2 * time.Second))
		line, err := io.ReadAll(c)
		c.Close()
		var got struct {
			Thread      int     `json:"thread"`
			ELUActiveMs float64 `json:"elu_active_ms"`
			HeapUsed    float64 `json:"heap_used_bytes"`
		}
		if err != nil || json.Unmarshal(line, &got) != nil || got.Thread != thread || got.ELUActiveMs <= 0 || got.HeapUsed <= 0 {
			t.Errorf("thread %d answered %q (%v): %+v", thread, line, err, got)
		}
	}
	dir := s.Node.Dir
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s outlived its server: %v", dir, err)
	}
}

// TestPreloadCannotListen: where the socket's path is too long for a unix socket, each thread's
// preload says so once, on stderr and in its reason file, and the server serves every scenario
// as it would without it.
func TestPreloadCannotListen(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 100))
	if err := os.Mkdir(long, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", long)
	log := child.NewBuffer() // written by the server's output copier, read here
	_, s := startUWS(t, StartOptions{Threads: 2, Log: log})
	if err := Verify(context.Background(), "uws", s.Addr(), scenario.HTTP()); err != nil {
		t.Fatal(err)
	}
	for _, thread := range []string{"0", "1"} {
		b, err := os.ReadFile(filepath.Join(s.Node.Dir, thread+".err"))
		if err != nil || !strings.Contains(string(b), "longer than 107 bytes") {
			t.Errorf("thread %s's reason: %q, %v", thread, b, err)
		}
		if n := strings.Count(log.String(), "bindrace preload (thread "+thread+")"); n != 1 {
			t.Errorf("thread %s said it %d times in the log, want once:\n%s", thread, n, log)
		}
	}
	if socks, _ := filepath.Glob(filepath.Join(s.Node.Dir, "*.sock")); len(socks) != 0 {
		t.Errorf("sockets %v", socks)
	}
}
