package machine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
)

func TestBusyFromProcStat(t *testing.T) {
	dir := t.TempDir()
	write := func(name, line string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(line+"\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1 2\n"), 0o644)
		return p
	}
	// user nice system idle iowait irq softirq steal guest guest_nice
	a, err := procfs.ReadCPUTimes(write("a", "cpu  100 0 50 800 50 0 0 0 10 0"))
	if err != nil || a.Total != 1000 || a.Idle != 850 {
		t.Fatalf("%+v %v", a, err)
	}
	// Next second, 200 jiffies: 80 of work, 80 idle, 40 stolen.
	b, _ := procfs.ReadCPUTimes(write("b", "cpu  150 0 80 880 50 0 0 40 10 0"))
	busy, steal := Busy(a, b)
	if busy != 60 || steal != 20 {
		t.Errorf("busy %v steal %v, want 60 and 20", busy, steal)
	}
}

func TestSampleBusy(t *testing.T) {
	busy, steal, err := SampleBusy(context.Background(), 100*time.Millisecond)
	if err != nil || busy < 0 || busy > 100 || steal < 0 || steal > 100 {
		t.Errorf("busy %v steal %v err %v", busy, steal, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := SampleBusy(ctx, time.Hour); err == nil {
		t.Error("a cancelled sample did not stop")
	}
}
