package page

import (
	"strings"
	"testing"

	"github.com/bindrace/bindrace/harness/session"
)

// kernelFixture is the race fixture with the kernel's share counted: paced system calls of the
// counts step, live system calls per response in the runtime table, and each side's sampled
// CPU time.
func kernelFixture() session.Summary {
	sum, _, _ := raceFixture("binding")
	sum.Syscalls = &session.SyscallCounts{Kernel: "6.18.44", N: 20000, Pipelining: 10, Reps: 3,
		PerResponse: map[string]map[string]float64{
			"a": {"syscalls": 0.206, "context-switches": 0.01, "syscall:sendmsg": 0.1, "syscall:recvfrom": 0.1, "syscall:epoll_pwait": 0.006},
			"b": {"syscalls": 0.31, "context-switches": 0.015, "syscall:write": 0.1, "syscall:read": 0.2, "syscall:epoll_pwait": 0.01},
		}}
	a, b, d := 0.207, 0.31, -33.2
	sum.Runtime["syscalls_per_response"] = session.Figure{A: &a, B: &b, DeltaPct: &d}
	sampled := func(ns float64, top string) *session.Sampled {
		return &session.Sampled{Samples: 1028, PeriodNs: 1_000_000, NsPerResponse: ns, UserNs: ns * 0.22, KernelNs: ns * 0.78, KernelPct: 78,
			Functions:  []session.SampledRow{{Name: top, NsPerResponse: 125.7, SharePct: 8.3}, {Name: "_raw_spin_unlock_irqrestore", Kernel: true, NsPerResponse: 74, SharePct: 4.9}},
			Syscalls:   []session.SampledRow{{Name: "sendmsg", Kernel: true, NsPerResponse: 801.9, SharePct: 52.7}},
			Activities: []session.SampledRow{{Name: "response send", NsPerResponse: 900, SharePct: 59.2}}}
	}
	sum.Sampled = map[string]*session.Sampled{"a": sampled(1520.9, "br::process"), "b": sampled(2995.5, "fasthttp.(*Server).serveConn")}
	return sum
}

// TestBrowserKernel: the page shows the paced system calls of both sides, every call either
// made, the live system calls in the runtime table, and each side's sampled CPU time with its
// rows, all as summary.json holds them; a race without them has none of these.
func TestBrowserKernel(t *testing.T) {
	chromium(t)
	sum := kernelFixture()
	_, raw, man := raceFixture("binding")
	dom := browse(t, "report-kernel", renderFixture(t, t.TempDir(), sum, raw, man))
	for _, want := range []string{`data-testid="syscalls"`, `data-call="syscall:sendmsg"`, `data-call="syscall:read"`, `data-call="context-switches"`,
		`data-metric="syscalls_per_response" data-a="0.207" data-b="0.31" data-delta="-33.2"`,
		`data-testid="sampled" data-side="binding" data-ns="1520.9"`, `data-testid="sampled" data-side="uws" data-ns="2995.5"`,
		"in sendmsg", "br::process", "kernel 6.18.44", "By activity: response send 59.2%"} {
		if !strings.Contains(dom, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if n := strings.Count(dom, `data-testid="syscall"`); n != 7 { // the total, context switches, 5 calls
		t.Errorf("%d system-call rows, want 7", n)
	}
	if n := strings.Count(dom, `data-testid="sampled-row"`); n != 6 {
		t.Errorf("%d sampled rows, want 3 a side", n)
	}
	plain, raw, man := raceFixture("binding")
	dom = browse(t, "report-plain", renderFixture(t, t.TempDir(), plain, raw, man))
	for _, absent := range []string{`data-testid="syscalls"`, `data-testid="sampled"`, `data-metric="syscalls_per_response"`, `data-metric="sampled_ns_per_response"`} {
		if strings.Contains(dom, absent) {
			t.Errorf("a race without kernel counts shows %s", absent)
		}
	}
}
