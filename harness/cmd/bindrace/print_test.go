package main

import (
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

func TestSweepLines(t *testing.T) {
	r := 45000.0
	sw := &session.Sweep{SLOMs: 1, PerTarget: []session.SweepTarget{{Target: "binding", SLORate: &r, Points: 4}, {Target: "uws", Points: 4}}}
	got := strings.Join(sweepLines(sw), "\n")
	want := "binding: p99 under 1 ms up to 45,000 requests/s\nuws: p99 under 1 ms at none of the rates"
	if got != want {
		t.Errorf("lines\n%s\nwant\n%s", got, want)
	}
}
