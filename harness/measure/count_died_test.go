package measure

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// TestCachegrindServerDied counts a server that executes an instruction valgrind refuses
// (testdata/evexserver.c: an EVEX one, undecoded by valgrind 3.19 on any host) once the
// counted load connects: the error must say it died, with the signal, the bytes, the function
// and valgrind's log, never what the client saw (a reset connection).
func TestCachegrindServerDied(t *testing.T) {
	testbin.Installed(t, "valgrind", "valgrind")
	gcc := testbin.Installed(t, "gcc", "g++, which depends on gcc")
	bin := filepath.Join(t.TempDir(), "evexserver")
	if out, err := exec.Command(gcc, "-O1", "-g", "-o", bin, "testdata/evexserver.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	tg, sc := targetAndPing(t, "cmd:"+bin+" {port}")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log bytes.Buffer
	// No Dir, as without --keep: the temporary directory must stay for the log's sake.
	_, err := counterOf(t, tg.Name, "", &log).Cachegrind(ctx, tg.Name, sc, 100, CachegrindOptions{})
	var died *counters.DiedError
	if !errors.As(err, &died) {
		t.Fatalf("err = %v, want a *DiedError\nlog:\n%s", err, log.String())
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(filepath.Dir(died.Log))) })
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"died under valgrind", "signal 4 (SIGILL)", "in evex_instruction", "EVEX-encoded (AVX-512), bytes 0x62 0xF1 0x7D 0x48 0xEF 0xC0", "valgrind's log: "} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "reset") {
		t.Errorf("error %q speaks of the client's reset connection", msg)
	}
	if b, err := os.ReadFile(died.Log); err != nil || !bytes.Contains(b, []byte("SIGILL")) {
		t.Errorf("valgrind's log %s: %v, or no SIGILL in it", died.Log, err)
	}
}

// targetAndPing resolves a target by name, and the ping scenario.
func targetAndPing(t *testing.T, name string) (*targets.Target, scenario.Scenario) {
	t.Helper()
	tg, err := targets.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.ByName("ping")
	if err != nil {
		t.Fatal(err)
	}
	return tg, sc
}
