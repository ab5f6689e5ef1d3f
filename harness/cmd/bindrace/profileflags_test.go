package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
)

func TestProfileFlags(t *testing.T) {
	p, err := profile.Load("release-linux", "../../../profiles")
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("race", pflag.ContinueOnError)
	o := addProfileFlags(fs, "quick", false)
	err = fs.Parse([]string{"--pairs", "3", "--duration", "1s", "--warmup", "0", "--pipelining", "1",
		"--threshold", "-3", "--threshold", "max_p99_delta_pct=40", "--threshold", "counter.instructions=1",
		"--cpus-server", "1", "--scenario", "params"})
	if err != nil {
		t.Fatal(err)
	}
	if err := applyProfileFlags(fs, o, p); err != nil {
		t.Fatal(err)
	}
	if p.Pairs != 3 || p.Duration.D() != time.Second || p.Warmup != 0 || p.Pipelining != 1 || p.CPUsServer != "1" {
		t.Errorf("overrides: %+v", p)
	}
	// Flags not given keep the profile's values.
	if p.Connections != 100 || p.Cooldown.D() != time.Second || p.Workers != 4 || p.Windows != 8 {
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

func TestBadProfileFlagValues(t *testing.T) {
	for _, args := range [][]string{
		{"--pairs", "0"},
		{"--connections", "-1"},
		{"--threshold", "fast"},
		{"--threshold", "p42=1"},
		{"--cooldown", "-1s"},
		{"--counters", "pmu"},
	} {
		p := profile.Default()
		fs := pflag.NewFlagSet("race", pflag.ContinueOnError)
		o := addProfileFlags(fs, "quick", false)
		if err := fs.Parse(args); err != nil {
			continue // pflag rejected it already: fine
		}
		if err := applyProfileFlags(fs, o, &p); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
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
