//go:build long

// Long test tier (make test-all, -tags long): four servers under valgrind.

package measure

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

	"github.com/bindrace/bindrace/harness/counters"
	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/scenario"
	"github.com/bindrace/bindrace/harness/targets"
)

// TestCachegrindEndToEnd runs the whole cachegrind mode twice on a real target (four fresh
// servers under valgrind, one at a time) and checks the figures are sane and repeat within the resolution they claim.
func TestCachegrindEndToEnd(t *testing.T) {
	tg := cachegrindTarget(t)
	sc, err := scenario.ByName("ping")
	if err != nil {
		t.Fatal(err)
	}
	// binding-static answers in ~900 instructions, so its start-up noise (tens of thousands of
	// instructions) needs more requests to stay well under the resolution bound below.
	n := 10000
	if tg.LoopThreads {
		n = 40000
	}
	if v, err := strconv.Atoi(os.Getenv("BINDRACE_CG_TEST_N")); err == nil && v > 0 {
		n = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()

	// One after the other, the server pinned to one CPU as the CLI does: two measurements at
	// once on a 2-core machine make the Go scheduler's work depend on the contention (4% apart).
	results := make([]*counters.CachegrindResult, 2)
	for i := range results {
		var log bytes.Buffer
		r, err := counterOf(t, tg.Name, "0", &log).Cachegrind(ctx, tg.Name, sc, n, CachegrindOptions{})
		if err != nil {
			t.Fatalf("%v\nserver and progress log:\n%s", err, log.String())
		}
		results[i] = r
		// Each run's server exits on the count's own SIGTERM: no warning of a crash.
		if strings.Contains(log.String(), "had already exited") {
			t.Errorf("a counted server's expected exit warned of:\n%s", log.String())
		}
	}
	a, b := results[0], results[1]
	for _, r := range results {
		t.Logf("%s ping N=%d: Ir %d / %d; per response: %v", r.Target, r.N, r.Runs[0].Events["Ir"], r.Runs[1].Events["Ir"], r.PerResponse)
		if r.Responses != int64(n) {
			t.Errorf("responses %d, want %d", r.Responses, n)
		}
		ins := r.PerResponse[counters.Instructions]
		if ins < 200 || ins > 200000 {
			t.Errorf("instructions per response %v: implausible", ins)
		}
		for _, k := range []string{counters.Branches, counters.BranchMispredicts, counters.I1Misses, counters.D1Misses, counters.LLMisses} {
			if _, ok := r.PerResponse[k]; !ok {
				t.Errorf("%s missing", k)
			}
		}
		if r.PerResponse[counters.Branches] <= 0 || r.PerResponse[counters.Branches] >= ins {
			t.Errorf("branches per response %v vs instructions %v", r.PerResponse[counters.Branches], ins)
		}
		if _, ok := r.Totals.Unsupported[counters.Cycles]; !ok {
			t.Error("cycles should be unsupported in cachegrind mode")
		}
	}
	ia, ib := a.PerResponse[counters.Instructions], b.PerResponse[counters.Instructions]
	ra, rb := a.Resolution[counters.Instructions], b.Resolution[counters.Instructions]
	diff := math.Abs(ia - ib)
	t.Logf("repeatability: %.1f ±%.1f vs %.1f ±%.1f instructions per response: %.1f (%.2f%%) apart", ia, ra, ib, rb, diff, diff/math.Min(ia, ib)*100)
	// Each count claims to lie within its resolution of its build's usual count, and the gate
	// decides on that claim (stats.AgreedCount, gate's resolution band), so two repeats must
	// agree within the sum. A fixed 0.5% was stricter than the tool's own claim: the sysmon's
	// ticks and a heap growth move a Go server's count by more on a loaded VM (0.66% here, CI).
	if diff > ra+rb {
		t.Errorf("instructions per response %.1f and %.1f differ by %.1f, beyond their resolutions ±%.1f and ±%.1f", ia, ib, diff, ra, rb)
	}
	// And the resolution must not grow unnoticed: here it is 1.1-1.2% of binding-static's count
	// at N = 40,000; at 2% ci's +1% limit would decide only deltas beyond +3%.
	for _, r := range results {
		if rel := r.Resolution[counters.Instructions] / r.PerResponse[counters.Instructions]; rel > 0.02 {
			t.Errorf("%s: resolution ±%.1f is %.1f%% of the count, over the 2%% this test allows", r.Target, r.Resolution[counters.Instructions], rel*100)
		}
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
	r, err := counterOf(t, tg.Name, "0", &log).Cachegrind(ctx, tg.Name, sc, 5000, CachegrindOptions{StopTimeout: 30 * time.Second})
	if err != nil {
		if strings.Contains(log.String(), "io_uring refused") {
			t.Skipf("the kernel refuses io_uring here:\n%s", log.String())
		}
		t.Fatalf("%v\nserver and progress log:\n%s", err, log.String())
	}
	ins := r.PerResponse[counters.Instructions]
	t.Logf("binding-static-uring ping: %.1f instructions per response", ins)
	if ins < 200 || ins > 20000 {
		t.Errorf("instructions per response %v: implausible for the core answering alone", ins)
	}
}
