// Package machine is the one owner of the facts about the machine and the checkout that several
// harness parts need: CPU lists (parse, count, complement, overlap, check), the default split of
// the CPUs between a server and the load generator and pinning the harness (cpus.go); how busy
// the CPUs are (cpustat.go, from internal/proc's CPU times); the repository root (root.go); the
// source hash, the same algorithm as scripts/source-hash.sh (sourcehash.go); and the
// environment a session's manifest.json records (environment.go).
package machine

import (
	"context"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
)

// Busy is how much of all CPUs' time between two readings was not idle, and how much the
// hypervisor stole, in percent.
func Busy(a, b procfs.CPUTimes) (busyPct, stealPct float64) {
	total := float64(b.Total - a.Total)
	if total <= 0 || b.Total < a.Total {
		return 0, 0
	}
	return 100 * (1 - float64(b.Idle-a.Idle)/total), 100 * float64(b.Steal-a.Steal) / total
}

// SampleBusy measures Busy over d (normally a second before a run, while nothing of the
// harness's runs): what else uses the machine, and what the hypervisor takes.
func SampleBusy(ctx context.Context, d time.Duration) (busyPct, stealPct float64, err error) {
	a, err := procfs.ReadCPUTimes("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return 0, 0, ctx.Err()
	}
	b, err := procfs.ReadCPUTimes("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	busyPct, stealPct = Busy(a, b)
	return busyPct, stealPct, nil
}

// Limits above which a run is flagged: a tenth of the machine busy with something else, or
// the hypervisor taking 2% of the time, changes throughput by more than the gate resolves.
const (
	BusyWarnPct  = 10
	StealWarnPct = 2
)
