//go:build long

// Long test tier (make test-all, -tags long): a calibration of two races, one of them with the
// target's CPU capped through a cgroup (about a minute).

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/kinds"
)

// bindrace calibrate races a target against itself and against itself with its CPU capped: the
// cap shows as the slowdown it is, and calibration.json records every race.
func TestCalibrate(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: the CPU cap needs a cgroup, which needs root")
	}
	dir := filepath.Join(t.TempDir(), "cal")
	// --steal-limit -1: a VM losing 5-15% of its time to the hypervisor for minutes set aside
	// nearly every window (CI, 2026-12-02). The cap is a quarter of the CPU: half of it did not
	// bind while the other packages' tests took that much of the CPU anyway (a -1.6% delta).
	r := cli(t, 180*time.Second, append([]string{"calibrate", "--target", "fasthttp", "--profile", "quick", "--slowdowns", "0,75",
		"--races", "1", "--pairs", "6", "--connections", "20", "--steal-limit", "-1", "--out", dir}, fast...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var cal kinds.Calibration
	b, _ := os.ReadFile(filepath.Join(dir, "calibration.json"))
	if err := json.Unmarshal(b, &cal); err != nil || len(cal.Rows) != 2 {
		t.Fatalf("calibration.json: %v\n%s", err, b)
	}
	aa, capped := cal.Rows[0], cal.Rows[1]
	if aa.Candidate != "fasthttp" || len(aa.Verdicts) != 1 || len(aa.HalfWidths) != 1 {
		t.Errorf("A/A row %+v", aa)
	}
	// A quarter of the CPU of a saturated server: clearly slower, and not by chance.
	if capped.Candidate != "fasthttp@cpu25" || len(capped.MedianDeltas) != 1 || capped.MedianDeltas[0] > -20 {
		t.Errorf("capped row %+v", capped)
	}
	noLeftovers(t)
}
