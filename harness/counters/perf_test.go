package counters

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kernelPMU asks the kernel directly whether a hardware cycles event can be opened on this
// thread: nil when it can, else the errno.
func kernelPMU() error {
	return openEvent(unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CPU_CYCLES)
}

func softwareAllowed(t *testing.T) {
	if err := openEvent(unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_TASK_CLOCK); err != nil {
		t.Skipf("perf_event_open refused even a software event (%v): %s", err, paranoidAdvice())
	}
}

// openEvent opens a disabled perf event of type typ and config on this thread and closes it
// again: nil when the kernel allows it, else the errno.
func openEvent(typ uint32, config uint64) error {
	attr := unix.PerfEventAttr{
		Type:   typ,
		Config: config,
		Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Bits:   unix.PerfBitDisabled | unix.PerfBitExcludeHv,
	}
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, 0)
	if err != nil {
		return err
	}
	unix.Close(fd)
	return nil
}

// checkHardware asserts the hardware counters follow what the kernel says: with a PMU, real
// values; without, each one unsupported with a reason, never a zero.
func checkHardware(t *testing.T, tot Totals) {
	t.Helper()
	pmuErr := kernelPMU()
	t.Logf("kernel on a hardware cycles event: %v", pmuErr)
	for _, name := range HardwareCounters {
		v, has := tot.Values[name]
		why, unsup := tot.Unsupported[name]
		if has && unsup {
			t.Errorf("%s both counted (%v) and unsupported (%q)", name, v, why)
		}
		if !has && !unsup {
			t.Errorf("%s neither counted nor unsupported", name)
		}
		if unsup && strings.TrimSpace(why) == "" {
			t.Errorf("%s unsupported with an empty reason", name)
		}
		switch {
		case pmuErr == nil:
			// A PMU: cycles and instructions must be real; others may be refused by this PMU.
			if (name == Cycles || name == Instructions) && (!has || v <= 0) {
				t.Errorf("host has a PMU but %s = %v (unsupported: %q)", name, v, why)
			}
		case pmuErr == unix.ENOENT:
			if has {
				t.Errorf("no PMU (ENOENT) but %s = %v", name, v)
			}
			if !strings.Contains(why, "no PMU") || !strings.Contains(why, "ENOENT") {
				t.Errorf("%s: reason %q should name the missing PMU and ENOENT", name, why)
			}
		default:
			if has {
				t.Errorf("kernel refuses hardware events (%v) but %s = %v", pmuErr, name, v)
			}
		}
	}
}

// TestPerfSoftwareNormalization: task-clock per response from perf matches the CPU time /proc
// reports for the server over the same window, and the hardware counters are either real or
// unsupported with the kernel's reason.
func TestPerfSoftwareNormalization(t *testing.T) {
	softwareAllowed(t)
	srv := startTestServer(t)
	hammer(t, srv.addr, 8, 10, 300*time.Millisecond) // warm-up: counters off

	cpu0 := procCPU(t, srv.pid)
	sess, err := StartPerf(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	responses := hammer(t, srv.addr, 8, 10, 1500*time.Millisecond)
	tot, err := sess.Stop()
	cpu1 := procCPU(t, srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Stop(); err == nil {
		t.Error("second Stop should fail")
	}
	per := PerResponse(tot, responses)
	procPer := float64((cpu1 - cpu0).Nanoseconds()) / float64(responses)
	t.Logf("responses %d window %s threads %d; task-clock %.0f ns/resp (/proc %.0f ns/resp); ctx-sw %.4f/resp; faults %.4f/resp; notes %v",
		responses, tot.Window, tot.Threads, per[TaskClockNs], procPer, per[ContextSwitches], per[PageFaults], tot.Notes)
	for k, v := range tot.Unsupported {
		t.Logf("unsupported %s: %s", k, v)
	}
	if responses < 1000 {
		t.Fatalf("only %d responses", responses)
	}
	if tot.Window < time.Second || tot.Window > 3*time.Second {
		t.Errorf("window %s, want about 1.5 s", tot.Window)
	}
	if tot.Threads < 2 {
		t.Errorf("counted %d threads; a Go server has several", tot.Threads)
	}
	for _, name := range []string{TaskClockNs, ContextSwitches, PageFaults} {
		if _, ok := tot.Values[name]; !ok {
			t.Errorf("software counter %s missing: %q", name, tot.Unsupported[name])
		}
	}
	tc := per[TaskClockNs]
	if tc <= 0 {
		t.Fatalf("task-clock per response %v", tc)
	}
	if procPer <= 0 {
		t.Fatalf("/proc CPU per response %v", procPer)
	}
	if r := tc / procPer; r < 1/1.5 || r > 1.5 {
		t.Errorf("task-clock %.0f ns/resp vs /proc %.0f ns/resp: ratio %.2f, want within 1.5x", tc, procPer, r)
	}
	if per[ContextSwitches] < 0 || math.IsNaN(per[ContextSwitches]) {
		t.Errorf("context switches per response %v", per[ContextSwitches])
	}
	checkHardware(t, tot)
}

// TestPerfFollowsNewThreads: threads the server creates after the counters were opened, and
// that exit before they are read, are counted (inherit).
func TestPerfFollowsNewThreads(t *testing.T) {
	softwareAllowed(t)
	srv := startTestServer(t)
	before, err := threadIDs(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	known := map[int]bool{}
	for _, tid := range before {
		known[tid] = true
	}
	sess, err := StartPerf(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /spawn HTTP/1.1\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	br := bufio.NewReader(c)
	var clen int
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			clen, _ = strconv.Atoi(strings.TrimSpace(v))
		}
		if line == "\r\n" {
			break
		}
	}
	body := make([]byte, clen)
	if _, err := io.ReadFull(br, body); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the locked threads exit
	tot, err := sess.Stop()
	if err != nil {
		t.Fatal(err)
	}
	newThreads := 0
	for _, f := range strings.Fields(string(body)) {
		tid, _ := strconv.Atoi(f)
		if !known[tid] {
			newThreads++
		}
	}
	after, _ := threadIDs(srv.pid)
	got := time.Duration(tot.Values[TaskClockNs])
	want := time.Duration(spinners) * spinCPU
	t.Logf("threads before %d, after %d; spinners on %d new threads; task-clock %s, spun %s", len(before), len(after), newThreads, got, want)
	if newThreads == 0 {
		t.Skip("the Go runtime reused existing threads for every spinner; nothing to show")
	}
	// Work on threads that did not exist at StartPerf must be in the total.
	if got < want*9/10 {
		t.Errorf("task-clock %s < 90%% of the %s the spinners burned (%d of them on new threads): new threads not counted", got, want, newThreads)
	}
}

// TestPerfGoneProcess: a pid that does not exist is an error, not an empty result.
func TestPerfGoneProcess(t *testing.T) {
	if _, err := StartPerf(1 << 30); err == nil {
		t.Fatal("StartPerf on a missing pid succeeded")
	}
}

func TestReasons(t *testing.T) {
	if r := reason(unix.ENOENT, nil); !strings.Contains(r, "no PMU") || !strings.Contains(r, "ENOENT") {
		t.Errorf("ENOENT reason %q", r)
	}
	r := reason(unix.EACCES, nil)
	if !strings.Contains(r, "perf_event_paranoid") || !strings.Contains(r, "sysctl kernel.perf_event_paranoid=1") || !strings.Contains(r, "root") {
		t.Errorf("EACCES reason %q should say how to fix it", r)
	}
	// perf-utils quotes the errno text rather than wrapping it.
	err := fmt.Errorf("Failed to open perf event for PerfEventAttr {}: %q", unix.ENOENT)
	if e := errnoOf(err); e != unix.ENOENT {
		t.Errorf("errnoOf(%v) = %v", err, e)
	}
	if _, err := os.Stat("/proc/sys/kernel/perf_event_paranoid"); err == nil && !strings.Contains(paranoidAdvice(), "is ") {
		t.Error(paranoidAdvice())
	}
}

func TestPerResponse(t *testing.T) {
	tot := Totals{Values: map[string]float64{Cycles: 2000, Instructions: 3000, TaskClockNs: 1000}}
	p := PerResponse(tot, 10)
	if p[Cycles] != 200 || p[Instructions] != 300 || p[TaskClockNs] != 100 || p[IPC] != 1.5 {
		t.Errorf("%v", p)
	}
	if len(PerResponse(tot, 0)) != 0 {
		t.Error("responses 0 must give an empty map")
	}
	if _, ok := PerResponse(Totals{Values: map[string]float64{Instructions: 1}}, 1)[IPC]; ok {
		t.Error("ipc without cycles")
	}
}
