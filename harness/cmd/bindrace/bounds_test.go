package main

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Bad profiles, thresholds and bounds are refused with exit 2 before any server starts, one
// line naming the file and field or the flag: the issue's examples, as a user gives them.
func TestRefusedBeforeAnythingStarts(t *testing.T) {
	bad := func(name string) string { return filepath.Join(root, "harness/profile/testdata/bad", name) }
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", bad("null.json")}, "null.json: want one JSON object, got null"},
		{[]string{"--profile", bad("two-objects.json")}, "two-objects.json: a second JSON value after the object"},
		{[]string{"--profile", bad("negative-max-errors.json")}, "negative-max-errors.json: thresholds max_errors=-1: must not be negative"},
		{[]string{"--threshold", "NaN"}, "--threshold min_median_delta_pct=NaN: a limit must be a finite number"},
		{[]string{"--threshold", "max_errors=-1"}, "--threshold max_errors=-1: must not be negative"},
		{[]string{"--pipelining", "1000000000"}, "--pipelining 1000000000 is out of range"},
		{[]string{"--rate", "1e300"}, "--rate 1e+300 requests/s is out of range"},
		{[]string{"--max-pairs", "100000000"}, "--max-pairs 100000000 is out of range"},
		// The README's promise: a budget too short for the design is refused before anything runs.
		{[]string{"--max-time", "1ms"}, "--max-time 1ms is too short"},
	} {
		start := time.Now()
		r := cli(t, time.Minute, append([]string{"race", "--a", "binding", "--b", "uws"}, tc.args...)...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "verifying") {
			t.Errorf("%v: exit %d in %s\n%s\nwant 2 and %q, no server started", tc.args, r.code, time.Since(start), r.stderr, tc.want)
		}
	}
	if r := cli(t, time.Minute, "race", "--help"); r.code != 0 || !strings.Contains(r.stdout, "--pipelining int") || !strings.Contains(r.stdout, " here]") {
		t.Errorf("race --help shows no bound: exit %d\n%s", r.code, r.stdout)
	}
}

// gate's --threshold is held to the same rule as race's: +Inf printed a JSON error object and
// exited 0; now exit 2, nothing on stdout, the session's files untouched.
func TestGateThresholdNotFinite(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(root, "harness/gate/testdata/schema2/summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	before := sha256.Sum256(b)
	for _, th := range []string{"max_p99_delta_pct=+Inf", "NaN", "min_median_delta_pct=-1e9"} {
		r := cli(t, time.Minute, "gate", dir, "--threshold", th, "--json")
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "--threshold") {
			t.Errorf("gate --threshold %s: exit %d, stdout %q, stderr %q", th, r.code, r.stdout, r.stderr)
		}
	}
	after, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if sha256.Sum256(after) != before {
		t.Error("gate changed the session's summary.json")
	}
}
