//go:build long

// Long test tier (make test-all, -tags long): a calibration of two races, one of them with the
// target's CPU capped through a cgroup (about a minute).

package main

import (
	"os"
	"testing"
)

// bindrace calibrate races a target against itself and against itself with its CPU capped: the
// cap shows as the slowdown it is, and calibration.json records every race.
func TestCalibrate(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("skipped: the CPU cap needs a cgroup, which needs root")
	}
	// The cap is a quarter of the CPU: half of it did not bind while the other packages' tests
	// took that much of the CPU anyway (a -1.6% delta).
	capped := calibrateFasthttp(t, "0,75", 2).Rows[1]
	// A quarter of the CPU of a saturated server: clearly slower, and not by chance.
	if capped.Candidate != "fasthttp@cpu25" || len(capped.MedianDeltas) != 1 || capped.MedianDeltas[0] > -20 {
		t.Errorf("capped row %+v", capped)
	}
	noLeftovers(t)
}
