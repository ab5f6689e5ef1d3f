package gate

import (
	"testing"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// withSyscalls is a race whose counts step counted paced system calls of both sides.
func withSyscalls(a, b float64) *session.Summary {
	s := withCounts(2177, 2171)
	five := 5.0
	s.Thresholds.SyscallMaxDeltaPct, s.Thresholds.SyscallMaxGrowthPct = &five, &five
	s.Syscalls = &session.SyscallCounts{Kernel: "6.1.0-27-amd64", N: 20000, Pipelining: 10, Reps: 3,
		PerResponse: map[string]map[string]float64{
			"a": {"syscalls": a, "syscall:getppid": a - b, "syscall:futex": 0.4},
			"b": {"syscalls": b, "syscall:futex": 0.4},
		},
		Samples: map[string][]float64{"a": {a, a, a}, "b": {b, b * 1.01, b}}}
	return s
}

// One more system call per response FAILs the syscall check while the instruction check
// passes, and the reason names the call; the A/A passes; no counts are INCONCLUSIVE with why.
func TestSyscallCheck(t *testing.T) {
	v, rs, checks := Decide(withSyscalls(1.803, 0.827), nil)
	c := check(checks, SyscallMetric)
	if v != session.Fail || c == nil || c.Verdict != session.Fail || check(checks, "instructions").Verdict != session.Pass ||
		!has(rs, "by call: getppid +0.976") || !has(rs, "kernel 6.1.0-27-amd64") {
		t.Errorf("one more call: %s %+v %q", v, c, rs)
	}
	if _, _, checks := Decide(withSyscalls(0.833, 0.821), nil); check(checks, SyscallMetric).Verdict != session.Pass {
		t.Errorf("A/A: %+v", check(checks, SyscallMetric))
	}
	s := withSyscalls(1, 1)
	s.Syscalls.Unsupported = "no tracefs mounted"
	if _, rs, checks := Decide(s, nil); check(checks, SyscallMetric).Verdict != session.Inconclusive || !has(rs, "not counted (no tracefs mounted)") {
		t.Errorf("unsupported: %q", rs)
	}
	s.Thresholds.SyscallMaxDeltaPct = nil
	if _, _, checks := Decide(s, nil); check(checks, SyscallMetric) != nil {
		t.Error("a profile without a syscall limit has no syscall check")
	}
}

// A baseline keeps the candidate's paced calls with its kernel; another kernel's are refused for
// the syscall check (INCONCLUSIVE), the instruction checks still stand.
func TestBaselineSyscalls(t *testing.T) {
	b := baselineOf(withSyscalls(0.827, 0.827))
	if e := b.Entries[0].Syscalls; e == nil || !e.Paced || e.Kernel != "6.1.0-27-amd64" || e.PerResponse["syscalls"] != 0.827 {
		t.Fatalf("entry %+v", e)
	}
	for _, c := range []struct {
		kernel, want string
		calls        float64
	}{{"6.1.0-27-amd64", session.Fail, 1.803}, {"6.1.0-27-amd64", session.Pass, 0.833}, {"6.12.0-1-amd64", session.Inconclusive, 0.827}} {
		s := withSyscalls(c.calls, 0.827)
		s.Syscalls.Kernel = c.kernel
		m, err := MatchBaseline(s, b, "baselines/ci.json")
		if err != nil {
			t.Fatal(err)
		}
		Apply(s, m)
		bc := check(s.Checks, "baseline:"+SyscallMetric)
		if bc == nil || bc.Verdict != c.want || check(s.Checks, "baseline:instructions").Verdict != session.Pass {
			t.Errorf("kernel %s, %.3f calls: %+v", c.kernel, c.calls, bc)
		}
		if c.want == session.Inconclusive && !has(s.Reasons, "refused, the baseline baselines/ci.json counted them on kernel 6.1.0-27-amd64 and this session on 6.12.0-1-amd64") {
			t.Errorf("kernel mismatch: %q", s.Reasons)
		}
	}
	old := baselineOf(withCounts(2171, 2171))
	s := withSyscalls(0.827, 0.827)
	m, _ := MatchBaseline(s, old, "old.json")
	Apply(s, m)
	if bc := check(s.Checks, "baseline:"+SyscallMetric); bc.Verdict != session.Inconclusive || !has(s.Reasons, "has no paced system-call counts") {
		t.Errorf("baseline without syscalls: %+v", bc)
	}
}

// liveSyscalls is an 8-pair race whose A made perPair[i] % more system calls per response than
// B under the live load, gated at +10%.
func liveSyscalls(perPair ...float64) *session.Summary {
	var ps []session.Pair
	for i, d := range perPair {
		ps = append(ps, session.Pair{Index: i, Order: []string{"AB", "BA"}[i%2],
			A: session.Run{Target: "regress", RPS: 1000, P99Ms: 4, SyscallsPerResponse: 0.2 * (1 + d/100)},
			B: session.Run{Target: "binding", RPS: 1000, P99Ms: 4, SyscallsPerResponse: 0.2}})
	}
	limit := 10.0
	th := session.Thresholds{MinMedianDeltaPct: -10, MaxP99DeltaPct: 50, LiveSyscallMaxDeltaPct: &limit}
	s := stats.Summarize(ps, th, stats.FixedDesign(0, 0.05/6))
	return &s
}

// Under the live load the system calls are an interval check: one more call per batch of ten
// (+50%) FAILs it, an A/A within a few percent PASSes, scattered deltas straddling the limit
// stay INCONCLUSIVE, and a race whose tracepoints could not be opened says why.
func TestLiveSyscallCheck(t *testing.T) {
	for _, c := range []struct {
		name    string
		s       *session.Summary
		verdict string
	}{
		{"one more call per batch", liveSyscalls(48, 52, 50, 47, 55, 49, 51, 53), session.Fail},
		{"A/A", liveSyscalls(1, -2, 0.5, 3, -1, 2, -0.5, 1.5), session.Pass},
		{"straddling", liveSyscalls(2, 25, -5, 14, 30, 1, 12, 8), session.Inconclusive},
	} {
		v, rs, checks := Decide(c.s, nil)
		lc := check(checks, stats.MetricSyscalls)
		if lc == nil || lc.Verdict != c.verdict || lc.Interval == nil || !has(rs, "system calls per response (live load): median delta") {
			t.Errorf("%s: %s, check %+v\n%q", c.name, v, lc, rs)
		}
	}
	none := liveSyscalls(0, 0, 0, 0, 0, 0, 0, 0)
	for i := range none.Pairs {
		none.Pairs[i].A.SyscallsPerResponse, none.Pairs[i].B.SyscallsPerResponse = 0, 0
	}
	none.Paired = nil
	none.CountersUnsupported = map[string]string{"syscalls": "no tracefs mounted"}
	if _, rs, checks := Decide(none, nil); check(checks, stats.MetricSyscalls).Verdict != session.Inconclusive || !has(rs, "no complete pair measured it: no tracefs mounted") {
		t.Errorf("no counts: %q", rs)
	}
	none.Thresholds.LiveSyscallMaxDeltaPct = nil
	if _, _, checks := Decide(none, nil); check(checks, stats.MetricSyscalls) != nil {
		t.Error("a profile without a live syscall limit has no live syscall check")
	}
}
