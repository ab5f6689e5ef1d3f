package machine

import (
	"context"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
)

func TestBusy(t *testing.T) {
	a := procfs.CPUTimes{Total: 1000, Idle: 850}
	// Next second, 200 jiffies: 80 of work, 80 idle, 40 stolen.
	b := procfs.CPUTimes{Total: 1200, Idle: 930, Steal: 40}
	if busy, steal := Busy(a, b); busy != 60 || steal != 20 {
		t.Errorf("busy %v steal %v, want 60 and 20", busy, steal)
	}
	if busy, steal := Busy(b, a); busy != 0 || steal != 0 {
		t.Errorf("counters that went backwards: busy %v steal %v, want 0", busy, steal)
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
