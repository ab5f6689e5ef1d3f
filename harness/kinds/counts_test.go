package kinds

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/counters"
)

// TestKeepDeathLog: a race whose server died under valgrind keeps valgrind's log in the
// session directory, and the reason it records points there; other errors pass untouched.
func TestKeepDeathLog(t *testing.T) {
	tmp, sdir := t.TempDir(), t.TempDir()
	log := filepath.Join(tmp, "valgrind.42.log")
	if err := os.WriteFile(log, []byte("==42== valgrind: Unrecognised instruction at address 0x1.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	died := fmt.Errorf("cachegrind x ping: %w", &counters.DiedError{Signal: "4 (SIGILL)", Log: log})
	got := keepDeathLog(died, sdir, "cmd:/srv {port}")
	kept, _ := filepath.Glob(filepath.Join(sdir, "valgrind-*.log"))
	if len(kept) != 1 || !strings.HasSuffix(got, "valgrind's log: "+kept[0]) {
		t.Fatalf("error %q, logs in the session %q: want one, pointed at", got, kept)
	}
	if b, err := os.ReadFile(kept[0]); err != nil || !strings.Contains(string(b), "Unrecognised instruction") {
		t.Errorf("kept log: %v %q", err, b)
	}
	other := errors.New("paced client: 3 of 100 responses")
	if got := keepDeathLog(other, sdir, "binding"); got != other.Error() {
		t.Errorf("another error became %v", got)
	}
}
