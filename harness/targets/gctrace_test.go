package targets

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/internal/testbin"
)

// Lines may arrive in pieces and among the server's own output; only gctrace lines count.
func TestGCTraceParses(t *testing.T) {
	var g GCTrace
	for _, piece := range []string{
		"listening on :8080\ngc 1 @0.004s 3%: 0.010+0.52+0.003 ms clock, 0.021+0.10/0.33/0.40+0.006 ms cpu, 3->4->1 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P\n",
		"gc 2 @0.110s 2%: 0.5", "+1.1+0.25 ms clock, 1.0+0.2/0.9/0+0.5 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n",
		"gc 3 @0.2s: not a line of the runtime's\n",
	} {
		g.Write([]byte(piece))
	}
	got := g.Totals()
	if got.Cycles != 2 || fmt.Sprintf("%.3f", got.PauseMs) != "0.763" || got.CPUPct != 2 || got.LiveMiB != 2 {
		t.Errorf("totals %+v; want 2 cycles, 0.013+0.75 ms of pauses, 2%%, 2 MiB live", got)
	}
}

// A Go server of the user's is run with GODEBUG=gctrace=1 and its collections are read from its
// stderr as it serves: the go-server binary under a definition of the user's, given work that
// allocates. A built-in Go target is not traced (its info route answers runtime/metrics).
func TestGCTraceOfAUsersGoServer(t *testing.T) {
	exe := os.Getenv(testbin.GoServerEnv)
	dir := t.TempDir()
	def := writeDefinition(t, dir, "target.json", `{
  "name": "traced-go", "runtime": "go",
  "start": {"command": ["`+exe+`", "--target", "nethttp", "--port", "{port}"], "env": {"GODEBUG": "madvdontneed=1"}},
  "scenarios": ["json"]
}`)
	tg, err := Resolve(def)
	if err != nil {
		t.Fatal(err)
	}
	_, env, err := tg.command(8080, StartOptions{})
	if err != nil || !strings.Contains(strings.Join(env, " "), "GODEBUG=madvdontneed=1,gctrace=1") {
		t.Fatalf("env %q, %v: want the definition's GODEBUG with gctrace=1", env, err)
	}
	s := startT(t, tg, StartOptions{})
	for i := 0; i < 30 && s.GC.Totals().Cycles < 2; i++ {
		postLarge(t, s.Addr())
	}
	if got := s.GC.Totals(); got.Cycles < 2 || got.LiveMiB <= 0 && got.PauseMs <= 0 {
		t.Errorf("traced %+v while serving; want collections", got)
	}
	builtin, err := Resolve("nethttp")
	if err != nil {
		t.Fatal(err)
	}
	if builtin.TracesGC {
		t.Error("the built-in nethttp is traced")
	}
}

// postLarge sends a body large enough that serving it allocates a few MiB.
func postLarge(t *testing.T, addr string) {
	t.Helper()
	big := `{"a":"` + strings.Repeat("x", 2<<20) + `"}`
	resp, err := http.Post("http://"+addr+"/json", "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}
