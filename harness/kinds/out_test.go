package kinds

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/setting"
)

// A session kind refuses an out folder holding a user's file before any server starts (the
// issue's interrupted race --out), naming {out} and {force}; the file is left as it was.
func TestOutFolderCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "summary.md")
	if err := os.WriteFile(notes, []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := profile.Default()
	o := Options{Profile: &p, Out: dir}
	_, raceErr := Race(context.Background(), RaceOptions{Options: o, A: "binding", B: "uws"})
	_, matrixErr := Matrix(context.Background(), MatrixOptions{Options: o, Targets: []string{"binding", "uws"}})
	_, noiseErr := MeasureNoise(context.Background(), NoiseOptions{Target: "binding", Profile: &p, Processes: 2, Out: dir})
	for name, err := range map[string]error{"race": raceErr, "matrix": matrixErr, "noise": noiseErr} {
		var se *setting.Error
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "holds files bindrace did not write (summary.md); choose another out, or give force") {
			t.Errorf("%s into a user's folder: %v", name, err)
		}
	}
	if b, _ := os.ReadFile(notes); string(b) != "my notes\n" {
		t.Errorf("summary.md is now %q", b)
	}
}
