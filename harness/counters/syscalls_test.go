package counters

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/testbin"
)

func TestSyscallTable(t *testing.T) {
	tot := Totals{Values: map[string]float64{
		Syscalls: 1000, ContextSwitches: 50,
		SyscallPrefix + "epoll_wait": 100, SyscallPrefix + "recvfrom": 100, SyscallPrefix + "sendmsg": 100,
		SyscallPrefix + "futex": 300, SyscallPrefix + "write": 100, SyscallPrefix + "close": 0,
	}}
	tab := NewSyscallTable(tot, 1000, 41000, 103000)
	if tab.PerResponse != 1 || tab.ContextSwitches != 0.05 || tab.Unsupported != "" {
		t.Errorf("%+v", tab)
	}
	var names []string
	for _, r := range tab.BySyscall {
		names = append(names, r.Name)
	}
	// the 300 calls outside the list are "(other)"; a call never made is not a row
	if strings.Join(names, " ") != "(other) futex epoll_wait recvfrom sendmsg write" {
		t.Errorf("rows %v", names)
	}
	if tab.SendsPerResponse != 0.2 || tab.RecvsPerResponse != 0.1 || tab.BytesPerSend != 515 || tab.BytesPerRecv != 410 {
		t.Errorf("sends %v recvs %v bytes/send %v bytes/recv %v", tab.SendsPerResponse, tab.RecvsPerResponse, tab.BytesPerSend, tab.BytesPerRecv)
	}
	no := NewSyscallTable(Totals{Unsupported: map[string]string{Syscalls: "no tracefs mounted"}}, 1000, 0, 0)
	if no.Unsupported != "no tracefs mounted" || no.PerResponse != 0 || len(no.BySyscall) != 0 {
		t.Errorf("unsupported: %+v", no)
	}
}

// TestSyscallProbe counts a server's system calls over a window of load, in total and by call;
// the live probe (StartSyscallTotals), counting the same window, finds the same total without
// the calls.
func TestSyscallProbe(t *testing.T) {
	softwareAllowed(t)
	srv := startTestServer(t)
	hammer(t, srv.addr, 2, 10, 200*time.Millisecond)
	probe, err := OpenSyscalls(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	probe.Enable()
	live, err := StartSyscallTotals(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	responses := hammer(t, srv.addr, 2, 10, 500*time.Millisecond)
	liveTot, err := live.Stop()
	if err != nil {
		t.Fatal(err)
	}
	tot, err := probe.Stop()
	if err != nil {
		t.Fatal(err)
	}
	testbin.TracepointsCounted(t, tot.Unsupported[Syscalls])
	if n, all := liveTot.Values[Syscalls], tot.Values[Syscalls]; n <= 0 || n > all || n < 0.99*all || len(liveTot.Values) != 2 {
		t.Errorf("live probe: %v system calls against the by-call probe's %v over the same window; values %v", n, all, liveTot.Values)
	}
	tab := NewSyscallTable(tot, responses, 0, 0)
	t.Logf("%d responses: %.3f syscalls/response, %+v", responses, tab.PerResponse, tab.BySyscall)
	// The test server reads a batch of ten requests and writes its answers with read(2)/write(2):
	// at most a few calls per batch, at least one read and one write per batch of ten.
	if tab.PerResponse <= 0 || tab.RecvsPerResponse < 0.1*0.9 || tab.SendsPerResponse < 0.1*0.9 {
		t.Errorf("syscalls %v, recvs %v, sends %v per response", tab.PerResponse, tab.RecvsPerResponse, tab.SendsPerResponse)
	}
	if _, ok := tot.Values[ContextSwitches]; !ok {
		t.Errorf("no context switches: %v", tot.Unsupported[ContextSwitches])
	}
}

// TestSyscallProbeOffUntilEnabled: an opened probe counts nothing before Enable, however busy
// the server, and what it counts after is the window's.
func TestSyscallProbeOffUntilEnabled(t *testing.T) {
	softwareAllowed(t)
	srv := startTestServer(t)
	probe, err := OpenSyscalls(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	hammer(t, srv.addr, 2, 10, 300*time.Millisecond) // before the window
	probe.Enable()
	responses := hammer(t, srv.addr, 2, 10, 300*time.Millisecond)
	tot, err := probe.Stop()
	if err != nil {
		t.Fatal(err)
	}
	testbin.TracepointsCounted(t, tot.Unsupported[Syscalls])
	// about one read and one write per batch of ten, and the runtime's few
	if per := tot.Values[Syscalls] / float64(responses); per < 0.15 || per > 1.5 {
		t.Errorf("%v system calls per response in the window (%v calls, %d responses)", per, tot.Values[Syscalls], responses)
	}
	idle, err := OpenSyscalls(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	hammer(t, srv.addr, 2, 10, 200*time.Millisecond)
	never, err := idle.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if never.Values[Syscalls] != 0 {
		t.Errorf("a probe never enabled counted %v system calls", never.Values[Syscalls])
	}
}

// TestSyscallProbeWithoutTracefs: without tracefs the probe says why, never a zero, and the
// context switches are still counted.
func TestSyscallProbeWithoutTracefs(t *testing.T) {
	softwareAllowed(t)
	srv := startTestServer(t)
	old := tracefsDir
	defer func() { tracefsDir = old }()
	for name, dir := range map[string]func() (string, error){
		"not mounted": func() (string, error) { return "", errors.New("Mount for tracefs not mounted") },
		"empty":       func() (string, error) { return t.TempDir(), nil },
	} {
		tracefsDir = dir
		probe, err := StartSyscallTotals(srv.pid)
		if err != nil {
			t.Fatal(err)
		}
		tot, err := probe.Stop()
		if err != nil {
			t.Fatal(err)
		}
		why := tot.Unsupported[Syscalls]
		if _, counted := tot.Values[Syscalls]; counted || why == "" {
			t.Errorf("%s: counted %v, reason %q", name, tot.Values[Syscalls], why)
		}
		want := map[string]string{"not mounted": "mount -t tracefs", "empty": "no tracepoint raw_syscalls:sys_enter"}[name]
		if !strings.Contains(why, want) {
			t.Errorf("%s: reason %q, want it to say %q", name, why, want)
		}
		if _, ok := tot.Values[ContextSwitches]; !ok {
			t.Errorf("%s: context switches lost too", name)
		}
	}
}
