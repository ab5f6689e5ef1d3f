package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/session"
)

func TestScale(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("scale to 2 threads needs 2 CPUs")
	}
	dir := filepath.Join(t.TempDir(), "scale")
	r := cli(t, 90*time.Second, "scale", "--targets", "fasthttp,nethttp", "--threads", "2,1", "--rounds", "1",
		"--duration", "400ms", "--warmup", "100ms", "--settle", "0", "--cooldown", "0", "--busy-sample", "0", "--out", dir, "--json")
	var s session.Scale // a scale exits 0 or 2
	r.decode(t, &s)
	if s.Kind != "scale" || len(s.Runs) != 4 || len(s.Points) != 4 || s.BaseThreads != 1 {
		t.Fatalf("kind %q, %d runs, %d points, base %d", s.Kind, len(s.Runs), len(s.Points), s.BaseThreads)
	}
	// Threads ascending; the order reversed from the first point to the second.
	order := []string{"fasthttp", "nethttp", "nethttp", "fasthttp"}
	for i, run := range s.Runs {
		if want := 1 + i/2; run.ServerThreads != want || run.Target != order[i] {
			t.Errorf("run %d: %s at %d threads, want %s at %d", i, run.Target, run.ServerThreads, order[i], want)
		}
		if run.Threads != run.ServerThreads {
			t.Errorf("run %d: %s served with %d threads, asked %d", i, run.Target, run.Threads, run.ServerThreads)
		}
		if run.ClientCPUPct <= 0 || run.ServerCPUPct <= 0 {
			t.Errorf("run %d: client CPU %.1f%%, server CPU %.1f%%: not measured", i, run.ClientCPUPct, run.ServerCPUPct)
		}
	}
	for _, p := range s.Points {
		if p.Runs != 1 || p.RPS <= 0 || p.EfficiencyPct <= 0 {
			t.Errorf("point %+v has no figures", p)
		}
		// Default split on this machine: the 1-thread server is alone, 2 threads on 2 CPUs share.
		if wantShared := p.Threads == 2 && runtime.NumCPU() == 2; p.SharedCPUs != wantShared {
			t.Errorf("%s at %d threads: shared CPUs %v, want %v", p.Target, p.Threads, p.SharedCPUs, wantShared)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(md), "## Scaling") || !strings.Contains(string(md), "## Curves") {
		t.Errorf("summary.md lacks the scaling table or chart (%v)", err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !strings.Contains(string(page), `data-kind="scale"`) {
		t.Errorf("report.html is not a scale page (%v)", err)
	}
	noLeftovers(t)
}

func TestScaleBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--targets", "fasthttp", "--threads", "0"}, "at least 1"},
		{[]string{"--targets", "fasthttp", "--threads", "1,x"}, `"x" is not a whole number`},
		{[]string{"--targets", "fasthttp", "--threads", ""}, "--threads is empty"},
		{[]string{"--targets", "", "--threads", "1"}, "--targets is empty"},
		{[]string{"--targets", "fasthttp,nosuch", "--threads", "1"}, "nosuch"},
		{[]string{"--targets", "fasthttp", "--threads", "4096"}, "CPUs"},
	} {
		r := cli(t, 30*time.Second, append([]string{"scale", "--out", t.TempDir()}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("scale %v: exit %d, stderr %q; want exit 2 naming %q", c.args, r.code, r.stderr, c.want)
		}
	}
	noLeftovers(t)
}
