package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/scenario"
)

// parseProfileFlags parses args as race's profile flags over profile name.
func parseProfileFlags(t *testing.T, name string, args ...string) (*pflag.FlagSet, *profileFlags) {
	t.Helper()
	t.Setenv("BINDRACE_PROFILES", "../../../profiles")
	fs := pflag.NewFlagSet("race", pflag.ContinueOnError)
	pf := addProfileFlags(fs, name, false)
	addRateFlags(fs, pf)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs, pf
}

func TestProfileFlags(t *testing.T) {
	fs, pf := parseProfileFlags(t, "release-linux", "--pairs", "3", "--duration", "1s", "--warmup", "0", "--pipelining", "1",
		"--threshold", "-3", "--threshold", "max_p99_delta_pct=40", "--threshold", "counter.instructions=1",
		"--cpus-server", "1", "--scenario", "params", "--rate", "5000")
	p, err := pf.load(fs)
	if err != nil {
		t.Fatal(err)
	}
	if p.Pairs != 3 || p.Duration.D() != time.Second || p.Warmup != 0 || p.Pipelining != 1 || p.CPUsServer != "1" || p.Rate != 5000 {
		t.Errorf("overrides: %+v", p)
	}
	// Flags not given keep the profile's values.
	if p.Connections != 100 || p.Cooldown.D() != time.Second || p.Workers != 4 || p.Windows != 4 {
		t.Errorf("untouched values changed: %+v", p)
	}
	if p.Thresholds.MinMedianDeltaPct != -3 || p.Thresholds.MaxP99DeltaPct != 40 || p.Thresholds.CounterMaxGrowthPct["instructions"] != 1 {
		t.Errorf("thresholds: %+v", p.Thresholds)
	}
	// --scenario replaces the scenarios and drops the extra races.
	if r := p.Races(); len(r) != 1 || r[0].Scenario != "params" {
		t.Errorf("races after --scenario: %+v", r)
	}
}

// --sample adds sampling whether --counters comes before or after it; --sample=false takes it
// away from a --counters that named it.
func TestSampleFlagOrder(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sample", "--counters", "syscalls"}, "syscalls,sample"},
		{[]string{"--counters", "syscalls", "--sample"}, "syscalls,sample"},
		{[]string{"--sample=false", "--counters", "syscalls,sample"}, "syscalls"},
	} {
		fs, pf := parseProfileFlags(t, "quick", c.args...)
		p, err := pf.load(fs)
		if err != nil {
			t.Fatal(err)
		}
		if p.Counters != c.want {
			t.Errorf("%q: counters %q, want %q", c.args, p.Counters, c.want)
		}
	}
}

// A bad value is refused naming the flag when a flag gave it; a bad value of the profile's
// own, named as the profile's field.
func TestBadProfileFlagValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pairs", "0"}, "--pairs must be at least 1 (got 0)"},
		{[]string{"--connections", "-1"}, "--connections must be at least 1"},
		{[]string{"--threshold", "fast"}, `--threshold "fast": "fast" is not a number`},
		{[]string{"--threshold", "p42=1"}, `unknown threshold "p42"`},
		{[]string{"--cooldown", "-1s"}, "--cooldown must not be negative"},
		{[]string{"--counters", "pmu"}, `--counters: unknown mode "pmu"`},
		{[]string{"--rate", "0"}, "--rate must be above 0 requests/s (got 0)"},
		{[]string{"--rate-fraction", "1.5"}, "--rate-fraction must be in (0, 1] (got 1.5)"},
		{[]string{"--pairs", "6", "--max-pairs", "20"}, "give one kind"},
		{[]string{"--min-pairs", "1"}, "--min-pairs 1 is out of range: want 2 to 1000 here"},
		// quick gates one check at 5% per direction: 2^-6 <= 5% < 2^-4, so unanimous pairs
		// decide from 6 on (--max-pairs 6 loads: TestDecisiveBudgetLoads).
		{[]string{"--min-pairs", "2", "--max-pairs", "4"}, "--max-pairs 4 can decide nothing: with 1 gated check(s) sharing the 5% false-FAIL budget (5% per check and direction) even a race that wins every pair needs 6 pairs; give at least 6"},
	} {
		fs, pf := parseProfileFlags(t, "quick", c.args...)
		_, err := pf.load(fs)
		if err == nil || !strings.Contains(flagWords(err), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	// The profile file's own bad value (windows 0 in a file) is the profile's, not a flag's.
	fs, pf := parseProfileFlags(t, writeProfile(t, `{"windows": 0}`))
	if _, err := pf.load(fs); err == nil || !strings.Contains(flagWords(err), "windows must be at least 1") || strings.Contains(flagWords(err), "--windows") {
		t.Errorf("a profile's bad windows: %v", err)
	}
}

func writeProfile(t *testing.T, body string) string {
	t.Helper()
	path := t.TempDir() + "/bad.json"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// --scenario's help names every scenario the scenario package has, the database ones too.
func TestScenarioHelpListsEveryScenario(t *testing.T) {
	fs := pflag.NewFlagSet("race", pflag.ContinueOnError)
	addProfileFlags(fs, "quick", false)
	help := fs.Lookup("scenario").Usage
	for _, sc := range append(scenario.All(), scenario.DB()...) {
		if !strings.Contains(help, sc.Name) {
			t.Errorf("--scenario's help lacks %s: %q", sc.Name, help)
		}
	}
}

// The smallest budget TestBadProfileFlagValues's refusal names is accepted.
func TestDecisiveBudgetLoads(t *testing.T) {
	fs, pf := parseProfileFlags(t, "quick", "--min-pairs", "2", "--max-pairs", "6")
	if p, err := pf.load(fs); err != nil || p.Sequential.MaxPairs != 6 {
		t.Errorf("--max-pairs 6 over quick: %v", err)
	}
}
