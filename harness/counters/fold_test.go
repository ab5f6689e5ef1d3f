package counters

import (
	"math"
	"os"
	"strings"
	"testing"
)

// A hand-made perf script: a send inside the kernel, Go code, JIT code without a symbol, and a
// softirq that interrupted user code.
const foldScript = ` 101     250000 
	ffffffff8206dbcb tcp_sendmsg ([kernel.kallsyms])
	ffffffff81e7d90b ____sys_sendmsg ([kernel.kallsyms])
	ffffffff81e80ec9 __sys_sendmsg ([kernel.kallsyms])
	ffffffff82259cc1 do_syscall_64 ([kernel.kallsyms])
	ffffffff81000130 entry_SYSCALL_64_after_hwframe ([kernel.kallsyms])
	          10ac4d __libc_sendmsg (/usr/lib/x86_64-linux-gnu/libc.so.6)

101     250000 
	          15ff46 github.com/bindrace/bindrace/binding.(*loop).serve (/work/bin/binding-server)
	          15fcb9 github.com/bindrace/bindrace/binding.(*loop).run (/work/bin/binding-server)

102     250000 
	    7f3a00001234 [unknown] ([unknown])
	          2fde5 uWS::HttpResponse<false>::end(std::basic_string_view<char, std::char_traits<char> >, bool) (/work/uws.node)

102     250000 
	ffffffff81eb9898 net_rx_action ([kernel.kallsyms])
	ffffffff8136963d handle_softirqs ([kernel.kallsyms])
	          15ff46 github.com/bindrace/bindrace/binding.(*loop).serve (/work/bin/binding-server)

`

func TestFoldScript(t *testing.T) {
	p, err := FoldScript(strings.NewReader(foldScript+"103     250000\n\n"), JITCode)
	if err != nil {
		t.Fatal(err)
	}
	// the fifth sample has no call chain: a row of its own, in user space
	if p.Samples != 5 || p.Threads != 3 || p.CPUNs != 1.25e6 || p.UserNs != 7.5e5 || p.KernelNs != 5e5 {
		t.Errorf("samples %d threads %d cpu %v user %v kernel %v", p.Samples, p.Threads, p.CPUNs, p.UserNs, p.KernelNs)
	}
	for name, want := range map[string]SampledFunction{
		"tcp_sendmsg": {Kernel: true, Ns: 250000},
		"github.com/bindrace/bindrace/binding.(*loop).serve": {Ns: 250000},
		JITCode:         {Ns: 250000},
		"net_rx_action": {Kernel: true, Ns: 250000},
		NoCallChain:     {Ns: 250000},
	} {
		if got := p.Functions[name]; got == nil || *got != want {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	if p.Syscalls["sendmsg"] != 250000 || p.Syscalls[KernelOutside] != 250000 || len(p.Syscalls) != 2 {
		t.Errorf("syscalls %v", p.Syscalls)
	}
	if p.Activities["response send"] != 250000 || p.Activities["binding loop: step and dispatch (rest)"] != 500000 {
		t.Errorf("activities %v", p.Activities)
	}
	tab := p.Table(1000)
	if tab.NsPerResponse != 1250 || tab.UserNs != 750 || tab.KernelNs != 500 || tab.KernelPct != 40 {
		t.Errorf("table %+v", tab)
	}
	if len(tab.Functions) != 5 || tab.Functions[0].NsPerResponse != 250 || tab.Functions[0].SharePct != 20 {
		t.Errorf("functions %+v", tab.Functions)
	}
}

func TestFoldScriptErrors(t *testing.T) {
	for in, want := range map[string]string{
		"\tffff x (y)\n":             "a frame before any sample header",
		"101 abc\n\tffff x (y)\n":    "is not \"tid period\"",
		"101 250000\n\n102 250000\n": "no sample has a call chain",
	} {
		if _, err := FoldScript(strings.NewReader(in), NoSymbolCode); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// TestFoldRealScript: 40 samples perf recorded of bin/binding-server serving ping: every sample
// is in exactly one function, one space and (in the kernel) one system-call row.
func TestFoldRealScript(t *testing.T) {
	f, err := os.Open("testdata/perf-script.binding-ping.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := FoldScript(f, NoSymbolCode)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(m map[string]float64) (s float64) {
		for _, v := range m {
			s += v
		}
		return s
	}
	fn := 0.0
	for _, f := range p.Functions {
		fn += f.Ns
	}
	if p.Samples != 40 || fn != p.CPUNs || p.UserNs+p.KernelNs != p.CPUNs || sum(p.Syscalls) != p.KernelNs || sum(p.Activities) != p.CPUNs {
		t.Errorf("samples %d: functions %v, user %v + kernel %v, syscalls %v, activities %v; all of %v", p.Samples, fn, p.UserNs, p.KernelNs, sum(p.Syscalls), sum(p.Activities), p.CPUNs)
	}
	for _, call := range []string{"sendmsg", "recvfrom", "epoll_wait"} {
		if p.Syscalls[call] <= 0 {
			t.Errorf("no time in %s: %v", call, p.Syscalls)
		}
	}
	if share := p.KernelNs / p.CPUNs; share < 0.5 || math.IsNaN(share) {
		t.Errorf("kernel share %.2f: ping's server time is mostly the kernel's", share)
	}
}

// TestActivities: each stack goes to the first activity one of its frames names, in the
// activities' order; a stack no activity names is "other" (the rule scripts/perfbuckets had).
func TestActivities(t *testing.T) {
	for want, frames := range map[string][]string{
		"goroutine stack growth (morestack)":                 {"runtime.copystack", "runtime.newstack", "github.com/bindrace/bindrace/harness/db.(*Queries).Handle"},
		"scheduler, netpoll, park":                           {"runtime.netpoll", "runtime.findRunnable"},
		"database query (db.Handle: pgx and its socket I/O)": {"github.com/bindrace/bindrace/harness/db.(*Queries).Handle", "main.addDBRoutes.dbHandler.func1.1"},
		OtherActivity: {"some.unknown"},
	} {
		if got := activityOf(frames); got != want {
			t.Errorf("%v: %q, want %q", frames, got, want)
		}
	}
}
