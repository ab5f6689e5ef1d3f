package counters

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSamplerWithoutPerf: where perf is missing, or refuses (perf_event_paranoid), the error
// says why and what to do.
func TestSamplerWithoutPerf(t *testing.T) {
	srv := startTestServer(t)
	_, err := StartSampler(srv.pid, SamplerOptions{Perf: "no-such-perf-binary"})
	if err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), "install perf") {
		t.Errorf("missing perf: %v", err)
	}
	refusing := filepath.Join(t.TempDir(), "perf")
	script := "#!/bin/sh\necho 'Error: Access to performance monitoring and observability operations is limited.' >&2\n" +
		"echo 'Consider adjusting /proc/sys/kernel/perf_event_paranoid setting' >&2\nexit 255\n"
	if err := os.WriteFile(refusing, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = StartSampler(srv.pid, SamplerOptions{Perf: refusing, Timeout: 5 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "perf_event_paranoid") || !strings.Contains(err.Error(), "sysctl kernel.perf_event_paranoid=1") {
		t.Errorf("refusing perf: %v", err)
	}
}

// perfCanSample fails a test where perf is missing (scripts/setup.sh installs linux-perf) and
// skips it where this host refuses perf record its processes.
func perfCanSample(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("perf"); err != nil {
		t.Fatal("perf is not installed: scripts/setup.sh installs linux-perf")
	}
	if out, err := exec.Command("perf", "record", "-q", "-e", "cpu-clock", "-o", "/dev/null", "--", "true").CombinedOutput(); err != nil {
		t.Skipf("perf record refused here: %v %s", err, out)
	}
}

// TestSamplerWindow: samples are taken only while enabled, of the server's threads, and the
// CPU time they add up to is the CPU time the server spent in the window.
func TestSamplerWindow(t *testing.T) {
	perfCanSample(t)
	srv := startTestServer(t)
	s, err := StartSampler(srv.pid, SamplerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hammer(t, srv.addr, 4, 10, 300*time.Millisecond) // before the window: not sampled
	cpu0 := procCPU(t, srv.pid)
	if err := s.Enable(); err != nil {
		t.Fatal(err)
	}
	responses := hammer(t, srv.addr, 4, 10, time.Second)
	if err := s.Disable(); err != nil {
		t.Fatal(err)
	}
	cpu := procCPU(t, srv.pid) - cpu0
	hammer(t, srv.addr, 4, 10, 300*time.Millisecond) // after it: not sampled
	p, err := s.Finish()
	if err != nil {
		t.Fatal(err)
	}
	tab := p.Table(responses)
	t.Logf("%d responses, %d samples on %d threads, %.0f ns/response (user %.0f, kernel %.0f); /proc CPU %s", responses,
		p.Samples, p.Threads, tab.NsPerResponse, tab.UserNs, tab.KernelNs, cpu)
	if p.Window < 900*time.Millisecond || p.Window > 3*time.Second {
		t.Errorf("window %s, want about 1 s", p.Window)
	}
	sampled := time.Duration(p.CPUNs)
	if sampled < cpu/2 || sampled > cpu*2 {
		t.Errorf("sampled %s of CPU, /proc says %s over the window: outside the window sampled, or not all of it", sampled, cpu)
	}
	if tab.KernelNs <= 0 || tab.UserNs <= 0 || len(tab.Syscalls) == 0 {
		t.Errorf("user %v kernel %v syscalls %v", tab.UserNs, tab.KernelNs, tab.Syscalls)
	}
}
