package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scripts/pgo-train.sh replaces its outputs only when they hold a profile of their kind (and
// training.json a training record), and says so before any training: a user's file given as
// PGO_OUT or GO_PGO_OUT, or lying where training.json would go, is left as it was.
func TestPGOTrainRefusesAUserFile(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	record := filepath.Join(dir, "training.json")
	for _, f := range []string{notes, record} {
		if err := os.WriteFile(f, []byte(`{"kind": "notes"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		env, want string
	}{
		{"PGO_OUT=" + notes, notes + " exists and is not an LLVM indexed profile"},
		{"GO_PGO_OUT=" + notes, notes + " exists and is not a Go CPU profile"},
		{"PGO_OUT=" + filepath.Join(dir, "new.profdata"), record + " exists and is not a training record"},
	} {
		cmd := exec.Command(filepath.Join(root, "scripts", "pgo-train.sh"))
		cmd.Dir, cmd.Env = root, append(os.Environ(), c.env)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %v\n%s", c.env, err, out)
		}
	}
	for _, f := range []string{notes, record} {
		if b, err := os.ReadFile(f); err != nil || string(b) != `{"kind": "notes"}` {
			t.Errorf("%s: %q, %v", f, b, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new.profdata")); !os.IsNotExist(err) {
		t.Errorf("new.profdata written before the refusal: %v", err)
	}
}
