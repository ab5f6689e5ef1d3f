package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/kinds"
)

// bindrace noise takes a target's variance apart level by level and says what the client saw.
func TestNoise(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "noise")
	r := cli(t, 90*time.Second, "noise", "--target", "fasthttp", "--processes", "2", "--windows", "2", "--duration", "3s",
		"--warmup", "200ms", "--busy-sample", "100ms", "--connections", "20", "--out", dir, "--json")
	var n kinds.Noise
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &n) != nil {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if len(n.Processes) != 2 || len(n.Processes[1].Windows) != 2 || len(n.Levels) != 4 {
		t.Fatalf("shape: %d processes, levels %+v", len(n.Processes), n.Levels)
	}
	for _, p := range n.Processes {
		for _, w := range p.Windows {
			if w.RPS <= 0 || w.ServerCPUPct <= 0 || w.RPSPerCPUSecond <= 0 || w.Client == nil || w.Client.ResponsesPerRead < 1 || len(w.Slices) == 0 {
				t.Errorf("window %+v", w)
			}
		}
	}
	for _, l := range n.Levels {
		if l.CVPct <= 0 || l.N <= 0 {
			t.Errorf("level %+v", l)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "noise.json")); err != nil {
		t.Error(err)
	}
	noLeftovers(t)
}

// calibrateFasthttp runs bindrace calibrate on fasthttp at the given slowdowns (one short race
// each, 6 pairs, nothing set aside for steal: a VM losing 5-15% of its time to the hypervisor
// for minutes set aside nearly every window, CI 2026-12-02) and reads its calibration.json,
// which must hold one row per slowdown, each with its A/A row first.
func calibrateFasthttp(t *testing.T, slowdowns string, rows int, extra ...string) kinds.Calibration {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cal")
	args := append([]string{"calibrate", "--target", "fasthttp", "--profile", "quick", "--slowdowns", slowdowns,
		"--races", "1", "--pairs", "6", "--connections", "20", "--steal-limit", "-1", "--out", dir}, fast...)
	r := cli(t, 180*time.Second, append(args, extra...)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var cal kinds.Calibration
	b, _ := os.ReadFile(filepath.Join(dir, "calibration.json"))
	if err := json.Unmarshal(b, &cal); err != nil || len(cal.Rows) != rows {
		t.Fatalf("calibration.json: %v\n%s", err, b)
	}
	if aa := cal.Rows[0]; aa.Candidate != "fasthttp" || len(aa.Verdicts) != 1 || len(aa.HalfWidths) != 1 || len(aa.MedianDeltas) != 1 {
		t.Errorf("A/A row %+v", aa)
	}
	return cal
}

// bindrace calibrate, end to end on its cheapest design: one race of the target against itself
// (slowdown 0) in two windows a pair, written to calibration.json. Whether a capped build shows
// as the slowdown it is, the minute-long part, is the long tier's TestCalibrate.
func TestCalibrateSmoke(t *testing.T) {
	calibrateFasthttp(t, "0", 1, "--windows", "2")
	noLeftovers(t)
}
