// Package machine is the one owner of the facts about the machine and the checkout that several
// harness parts need: CPU lists (parse, count, complement, overlap, check), the default split of
// the CPUs between a server and the load generator and pinning the harness (cpus.go); how busy
// the CPUs are (cpustat.go); the repository root (root.go); the source hash, the same algorithm
// as scripts/source-hash.sh (sourcehash.go); and the environment a session's manifest.json
// records (environment.go).
package machine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// CPUTimes is the first ("cpu") line of /proc/stat: jiffies spent in each state by all CPUs.
type CPUTimes struct {
	Total, Idle, Steal uint64 // idle includes iowait
}

// ReadCPUTimes reads /proc/stat (or the file at path, for tests).
func ReadCPUTimes(path string) (CPUTimes, error) {
	f, err := os.Open(path)
	if err != nil {
		return CPUTimes{}, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || fields[0] != "cpu" {
			continue
		}
		// user nice system idle iowait irq softirq steal guest guest_nice; guest time is
		// already counted in user and nice, so it is not added again.
		var v [8]uint64
		for i := 0; i < len(v) && i+1 < len(fields); i++ {
			if v[i], err = strconv.ParseUint(fields[i+1], 10, 64); err != nil {
				return CPUTimes{}, fmt.Errorf("%s: bad cpu line %q", path, sc.Text())
			}
		}
		t := CPUTimes{Idle: v[3] + v[4], Steal: v[7]}
		for _, x := range v {
			t.Total += x
		}
		return t, nil
	}
	if err := sc.Err(); err != nil {
		return CPUTimes{}, err
	}
	return CPUTimes{}, errors.New(path + ": no cpu line")
}

// Busy is how much of all CPUs' time between two readings was not idle, and how much the
// hypervisor stole, in percent.
func Busy(a, b CPUTimes) (busyPct, stealPct float64) {
	total := float64(b.Total - a.Total)
	if total <= 0 || b.Total < a.Total {
		return 0, 0
	}
	return 100 * (1 - float64(b.Idle-a.Idle)/total), 100 * float64(b.Steal-a.Steal) / total
}

// SampleBusy measures Busy over d (normally a second before a run, while nothing of the
// harness's runs): what else uses the machine, and what the hypervisor takes.
func SampleBusy(ctx context.Context, d time.Duration) (busyPct, stealPct float64, err error) {
	a, err := ReadCPUTimes("/proc/stat")
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
	b, err := ReadCPUTimes("/proc/stat")
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
