//go:build long

// Long test tier (make test-all, -tags long): the real uws target under load.

package measure

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/machine"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
)

// TestNodeRuntimeUnderLoad races nothing: it measures the real uws target with THREADS=2 (the
// main thread's app and a worker's) under a closed loop from the harness's own load generator,
// over two windows, and reads the preload's figures. The run's verification of the scenario
// passes with the preload in, every window has both threads' ELU, the busiest loop is busy, and
// the heap is there.
func TestNodeRuntimeUnderLoad(t *testing.T) {
	root, err := machine.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "harness", "targets", "uws", "node_modules")); err != nil {
		t.Fatalf("the uws target's node_modules: %v (run scripts/setup.sh)", err)
	}
	p := profile.Default()
	p.Windows, p.Threads = 2, 2
	p.Warmup, p.Duration, p.Settle = profile.Duration(300*time.Millisecond), profile.Duration(time.Second), 0
	p.Cooldown, p.BusySample = 0, 0
	pl, err := NewPlan(&p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRig(Config{Plan: pl, Targets: []string{"uws"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	// json: parsing and serializing in JavaScript costs the server far more than the client, so
	// the loops stay busy even where the load generator shares a busy machine.
	sc, _ := scenario.ByName("json")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// Enough connections for both apps (the kernel spreads them over the SO_REUSEPORT group)
	// and pipelining to keep each loop busy.
	run, err := r.Process(ctx, Spec{Target: "uws", Scenario: sc, Connections: 32, Pipelining: 10, Label: "uws"}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := run.Record
	if rec.Error != "" || rec.Responses == 0 || rec.Errors != 0 {
		t.Fatalf("run: error %q, %d responses, %d errors", rec.Error, rec.Responses, rec.Errors)
	}
	for i, w := range rec.PerWindow {
		if len(w.ThreadELUPct) != 2 || w.ThreadELUPct["0"] <= 0 || w.ThreadELUPct["1"] <= 0 {
			t.Errorf("window %d: threads' ELU %v, want threads 0 and 1", i, w.ThreadELUPct)
		}
	}
	if len(rec.PerWindow) != 2 {
		t.Errorf("%d windows, want 2", len(rec.PerWindow))
	}
	get := func(key string) float64 {
		v, ok := rec.Readings[key]
		if !ok || v.NotRead != "" {
			t.Errorf("%s: %+v (present %v)", key, v, ok)
		}
		return v.Value
	}
	busiest, main := get(NodeELUBusiestReading), get(NodeELUMainReading)
	if busiest <= 50 || busiest > 100 || main > busiest {
		t.Errorf("ELU: busiest %v%%, main %v%%; want the busiest over 50%% under a closed loop, and at least main's", busiest, main)
	}
	if used, total := get(NodeHeapUsedReading), get(NodeHeapTotalReading); used <= 0 || total < used {
		t.Errorf("V8 heap used %v MiB of %v", used, total)
	}
	get(NodeGCTimeReading)
	get(NodeGCCountReading)
	t.Logf("ELU busiest %.1f%%, main %.1f%% (its CPU %.1f%%, waiting for a CPU %.1f%%); per window %v; heap %v MiB; GC %v ms/s, %v pauses",
		busiest, main, get(MainThreadReading), get(MainThreadWaitReading), rec.PerWindow, rec.Readings[NodeHeapUsedReading].Value,
		rec.Readings[NodeGCTimeReading].Value, rec.Readings[NodeGCCountReading].Value)
}
