//go:build long

package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/session"
)

// TestRSSGrowthGate: the rss-growth mode gates like the other counts. A candidate that keeps
// 1 KiB a response (the test-only leak build) FAILs against the release build before any
// pair; the release build against itself does not.
func TestRSSGrowthGate(t *testing.T) {
	needBindingAndValgrind(t)
	tmp := t.TempDir()
	leaky := filepath.Join(tmp, "binding-server")
	build := exec.Command("go", "build", "-tags", "bindrace_release,bindrace_regress_leak",
		"-ldflags", "-X 'github.com/bindrace/bindrace/binding.nativeBuild="+stamp(t)+"'", "-o", leaky, "./harness/cmd/binding-server")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the leaking server: %v\n%s", err, out)
	}
	race := func(a, dir string) (session.Summary, result) {
		r := cli(t, 4*time.Minute, raceArgs("--a", a, "--b", "binding", "--pairs", "2", "--counters", "rss-growth",
			"--threshold", "counter_excess.rss-growth=5", "--out", filepath.Join(tmp, dir), "--json")...)
		var s session.Summary
		if r.code == 2 || json.Unmarshal([]byte(r.stdout), &s) != nil {
			t.Fatalf("race %s: exit %d\n%s%s", a, r.code, r.stdout, r.stderr)
		}
		return s, r
	}
	leak, r := race("cmd:"+leaky+" --port {port} --threads {threads}", "leak")
	c := checkOf(leak, "rss-growth")
	if r.code != 1 || c.Verdict != session.Fail || c.Delta == nil || *c.Delta < 100 || len(leak.Pairs) != 0 {
		t.Errorf("leaking candidate: exit %d, check %+v, %d pairs\n%s", r.code, c, len(leak.Pairs), r.stderr)
	}
	aa, r := race("binding", "aa")
	if c := checkOf(aa, "rss-growth"); aa.Verdict == session.Fail || c.Verdict == session.Fail || c.Delta == nil {
		t.Errorf("A/A: exit %d, %s, check %+v\n%s", r.code, aa.Verdict, c, r.stderr)
	}
	t.Logf("rss-growth: leaking candidate %+.1f, A/A %+.3f points of the resident set per 100k responses",
		*checkOf(leak, "rss-growth").Delta, *checkOf(aa, "rss-growth").Delta)
}
