//go:build long

// Long test tier (make test-all, -tags long): races of the real binding and uws, and of
// ws-echo, in 1 s windows.

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/session"
)

// Races against the real candidate and the pinned upstream; a race whose artefact is missing
// fails naming it (make test-long builds the binding, scripts/setup.sh installs uws).
func TestRaceBindingAndUWS(t *testing.T) {
	binding := filepath.Join(root, "bin", "binding-server")
	uwsModules := filepath.Join(root, "harness", "targets", "uws", "node_modules", "@trufflesuite", "uws-js-unofficial")
	missing := func(need ...string) string {
		for _, n := range need {
			switch n {
			case "binding":
				if _, err := os.Stat(binding); err != nil {
					return binding + " is missing (run make build)"
				}
			case "uws":
				if _, err := os.Stat(uwsModules); err != nil {
					return uwsModules + " is missing (run scripts/setup.sh)"
				}
				if _, err := exec.LookPath("node"); err != nil {
					return "node is not on PATH (run scripts/setup.sh)"
				}
			}
		}
		return ""
	}
	for _, c := range []struct {
		a, b string
		need []string
	}{
		{"binding", "fasthttp", []string{"binding"}},
		{"binding", "uws", []string{"binding", "uws"}},
		{"uws", "fasthttp", []string{"uws"}},
	} {
		t.Run(c.a+"-vs-"+c.b, func(t *testing.T) {
			if why := missing(c.need...); why != "" {
				t.Fatal(why)
			}
			dir := filepath.Join(t.TempDir(), "s")
			r := cli(t, 90*time.Second, "race", "--a", c.a, "--b", c.b, "--pairs", "2", "--duration", "1s",
				"--warmup", "200ms", "--settle", "0", "--cooldown", "0", "--busy-sample", "100ms", "--out", dir, "--json")
			var s session.Summary
			r.decode(t, &s)
			if len(s.Pairs) != 2 || s.Pairs[0].A.RPS <= 0 || s.Pairs[0].B.RPS <= 0 || s.SideA.Threads != 1 || s.SideB.Threads != 1 {
				t.Errorf("pairs: %+v", s.Pairs)
			}
			noLeftovers(t)
		})
	}
}

// A race on the ws-echo scenario drives a WebSocket load: messages/s in every run's rps, and the
// summary says so.
func TestRaceWebSocket(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session")
	r := cli(t, 60*time.Second, "race", "--a", "fasthttp", "--b", "nethttp", "--scenario", "ws-echo", "--pairs", "2",
		"--duration", "1s", "--warmup", "200ms", "--cooldown", "0", "--busy-sample", "100ms", "--out", dir, "--json")
	var s session.Summary
	r.decode(t, &s)
	onDisk, err := session.LoadSummary(dir)
	if err != nil {
		t.Fatalf("summary.json: %v", err)
	}
	for _, s := range []*session.Summary{&s, onDisk} {
		if s.Scenario != "ws-echo" || s.Unit != "messages/s" || s.Verdict == "" || len(s.Pairs) != 2 {
			t.Fatalf("summary: scenario %q unit %q verdict %q pairs %d", s.Scenario, s.Unit, s.Verdict, len(s.Pairs))
		}
		for _, p := range s.Pairs {
			for _, run := range []session.Run{p.A, p.B} {
				if run.Scenario != "ws-echo" || run.RPS <= 0 || run.Responses <= 0 || run.P99Ms <= 0 || run.Errors != 0 || run.Error != "" || run.ServerCPUPct <= 0 {
					t.Errorf("pair %d %s: %+v", p.Index, run.Target, run)
				}
			}
		}
	}
	if !strings.Contains(r.stderr, "messages/s") {
		t.Errorf("progress lines do not say messages/s:\n%s", r.stderr)
	}
	noLeftovers(t)
}
