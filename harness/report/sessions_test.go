package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RewriteSession rewrites the reports of a session bindrace wrote (its summary.json carries
// kind "race"), and leaves a folder whose summary.json is not bindrace's as it was (the issue's
// case: summary.json of {} beside the real reports); no temporary file remains.
func TestRewriteSessionOwnsItsFolder(t *testing.T) {
	dir, _ := writeRace(t, "binding")
	md := filepath.Join(dir, "summary.md")
	if err := RewriteSession(dir); err != nil {
		t.Fatal(err)
	}
	real, _ := os.ReadFile(md)
	writeJSON(t, filepath.Join(dir, "summary.json"), map[string]any{})
	err := RewriteSession(dir)
	if err == nil || !strings.Contains(err.Error(), "summary.json: kind: missing") {
		t.Errorf("RewriteSession of summary.json {}: %v", err)
	}
	if now, _ := os.ReadFile(md); string(now) != string(real) {
		t.Errorf("summary.md replaced:\n%s", now)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left over: %s", e.Name())
		}
	}
}
