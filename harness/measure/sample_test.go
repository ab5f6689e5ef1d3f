package measure

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/testbin"
	"github.com/bindrace/bindrace/harness/profile"
	"github.com/bindrace/bindrace/harness/scenario"
)

// countingRig is a rig over fasthttp whose runs are sampled and their system calls counted.
func countingRig(t *testing.T) (*Rig, Spec) {
	t.Helper()
	p := profile.Default()
	p.Windows, p.Warmup, p.Duration, p.Settle, p.Cooldown, p.BusySample = 2, profile.Duration(100*time.Millisecond), profile.Duration(500*time.Millisecond), 0, 0, 0
	p.Counters = "syscalls,sample"
	pl, err := NewPlan(&p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRig(Config{Plan: pl, Targets: []string{"fasthttp"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	sc, _ := scenario.ByName("ping")
	return r, Spec{Target: "fasthttp", Scenario: sc, Connections: 4, Pipelining: 10, Label: "fasthttp"}
}

// A run with the sample and syscall probes carries where its server's CPU time went (user and
// kernel, by function and system call) and its system calls and context switches per response,
// both over its windows.
func TestSampleAndSyscallProbes(t *testing.T) {
	r, spec := countingRig(t)
	run, err := r.Process(context.Background(), spec, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := run.Record
	if why := r.Unsupported().Sorted(); len(why) > 0 {
		t.Fatalf("unsupported here: %v", why)
	}
	s := rec.Sample
	if s == nil || s.Samples <= 0 || s.NsPerResponse <= 0 || s.KernelNs <= 0 || s.UserNs <= 0 || len(s.Functions) == 0 || len(s.Syscalls) == 0 {
		t.Fatalf("sample %+v", s)
	}
	// Pipelined by 10, the server reads and writes about once a batch: well under one system
	// call per response, and some.
	if rec.SyscallsPerResponse <= 0.05 || rec.SyscallsPerResponse > 1 || rec.ContextSwitchesPerResponse <= 0 {
		t.Errorf("%v system calls, %v context switches per response", rec.SyscallsPerResponse, rec.ContextSwitchesPerResponse)
	}
	t.Logf("%d responses: %.0f ns per response sampled (kernel %.1f%%, top %s), %.3f system calls per response",
		rec.Responses, s.NsPerResponse, s.KernelPct, s.Functions[0].Name, rec.SyscallsPerResponse)
}

// Without perf the run is measured as ever, with no sample and the reason named once.
func TestSampleProbeWithoutPerf(t *testing.T) {
	testbin.PathWithout(t, "taskset", "setarch") // everything but perf
	r, spec := countingRig(t)
	run, err := r.Process(context.Background(), spec, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if why := r.Unsupported().Sorted()[profile.CountersSample]; !strings.Contains(why, "perf not found") || run.Record.Sample != nil || run.Record.RPS <= 0 {
		t.Errorf("reason %q, sample %+v, rps %v", why, run.Record.Sample, run.Record.RPS)
	}
}
