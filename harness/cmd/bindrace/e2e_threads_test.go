//go:build long

// Long test tier: a race of the real binding against fasthttp read for its threads' CPU.

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/measure"
	"github.com/bindrace/bindrace/harness/session"
)

// Under the harness's own closed loop at saturation the binding's loop is busy over half the
// window, and both sides get their busiest and main thread's CPU, from /proc/PID/task, in every
// run, the runtime table of summary.json and the report; only the binding has loops.
func TestThreadReadingsInARace(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	r := cli(t, 90*time.Second, "race", "--a", "binding", "--b", "fasthttp", "--pairs", "2", "--duration", "1s",
		"--warmup", "300ms", "--settle", "0", "--cooldown", "0", "--busy-sample", "100ms", "--out", dir, "--json")
	var s session.Summary
	r.decode(t, &s)
	if len(s.Pairs) != 2 {
		t.Fatalf("pairs: %+v", s.Pairs)
	}
	for _, p := range s.Pairs {
		for _, run := range []session.Run{p.A, p.B} {
			busy, hasBusy := run.Readings[measure.LoopBusyReading]
			_, hasBusiest := run.Readings[measure.BusiestThreadReading]
			main, hasMain := run.Readings[measure.MainThreadReading]
			t.Logf("pair %d, %s: server CPU %.1f%%, loop busy %.1f%%, busiest thread %.1f%%, main thread %.1f%%", p.Index, run.Target,
				run.ServerCPUPct, run.Readings[measure.LoopBusyReading].Value, run.Readings[measure.BusiestThreadReading].Value, main.Value)
			if !hasBusiest || !hasMain || main.Value < 0 {
				t.Errorf("pair %d, %s: readings %+v; want the busiest and main thread's CPU", p.Index, run.Target, run.Readings)
			}
			if binding := run.Target == "binding"; hasBusy != binding || binding && busy.Value <= 50 {
				t.Errorf("pair %d, %s (server CPU %.1f%%): loop busy %+v (%v); want over 50%% for the binding only",
					p.Index, run.Target, run.ServerCPUPct, busy, hasBusy)
			}
		}
	}
	for _, key := range []string{measure.LoopBusyReading, measure.BusiestThreadReading, measure.MainThreadReading} {
		f := s.Runtime[key]
		if f.A == nil || !strings.Contains(f.Label, "/proc/PID/task/*/stat") {
			t.Errorf("runtime row %s: %+v", key, f)
		}
		if (f.B != nil) != (key != measure.LoopBusyReading) {
			t.Errorf("runtime row %s for fasthttp: %v", key, f.B)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil || !strings.Contains(string(md), "loop busy fraction") || !strings.Contains(string(md), "main thread's CPU") {
		t.Errorf("summary.md has no thread rows (%v)", err)
	}
	noLeftovers(t)
}
