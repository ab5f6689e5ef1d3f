package measure

import (
	"strings"
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
)

// lateServer answers usage reads with the server host's readings, however long the answers
// took to come back: what a remote server looks like from the harness.
type lateServer struct {
	Server
	readings []procfs.Usage
}

func (s *lateServer) Usage() (procfs.Usage, error) {
	u := s.readings[0]
	s.readings = s.readings[1:]
	return u, nil
}

// A window's CPU share is its CPU seconds over the server host's time between the two reads,
// not the harness's time between asking: reads that came back late (both here, instantly
// after each other) still give the share the host saw.
func TestUsageShareIsOverTheHostsClock(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	srv := &lateServer{readings: []procfs.Usage{
		{CPUSeconds: 10, RSSBytes: 8 << 20, At: at},
		{CPUSeconds: 11.5, RSSBytes: 8 << 20, At: at.Add(2 * time.Second)},
	}}
	r := usageProbe{}.Open(srv, Spec{})
	var w Window
	if err := r.Close(&w); err != nil {
		t.Fatal(err)
	}
	w.Closed = true
	if pct, cpu, ok := serverCPU([]Window{w}); !ok || pct != 75 || cpu != 1.5 {
		t.Errorf("server CPU %.2f%% (%.2f CPU-s, %v); want 75%% of 1.5 CPU-s over the host's 2 s", pct, cpu, ok)
	}
}

// Threads that could not be read (too many) leave the window's CPU and RSS standing and say so.
func TestUsageWithoutThreadsWarns(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	srv := &lateServer{readings: []procfs.Usage{
		{CPUSeconds: 1, RSSBytes: 8 << 20, At: at, ThreadsErr: procfs.TooManyThreads(600)},
		{CPUSeconds: 2, RSSBytes: 8 << 20, At: at.Add(time.Second), ThreadsErr: procfs.TooManyThreads(600)},
	}}
	var w Window
	err := usageProbe{}.Open(srv, Spec{}).Close(&w)
	if err == nil || !strings.Contains(err.Error(), "600 threads") || w.Usage == nil || w.Usage.CPUSeconds() != 1 {
		t.Errorf("window %+v, warning %v; want the CPU read and the threads' error", w.Usage, err)
	}
}
