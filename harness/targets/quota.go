package targets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A target named "T@cpuNN" is target T with its CPU time capped at NN% of what its CPUs could
// give it, through the kernel's CFS bandwidth control (the cpu cgroup's quota): a slowdown of a
// known size, with the same code, for calibrating what a race can detect (bindrace calibrate).
// A saturated server capped at 95% answers about 5% fewer requests per second.

const quotaSuffix = "@cpu"

// quotaPeriodUs is the CFS period: short, so the cap throttles in slices of at most a
// millisecond rather than stalling the server for tens of milliseconds at a time.
const quotaPeriodUs = 10000

// splitQuota parses "T@cpuNN" into T and NN; pct is 0 without the suffix.
func splitQuota(name string) (base string, pct int, err error) {
	i := strings.LastIndex(name, quotaSuffix)
	if i <= 0 || strings.HasPrefix(name, "cmd:") {
		return name, 0, nil
	}
	pct, err = strconv.Atoi(name[i+len(quotaSuffix):])
	if err != nil || pct < 1 || pct > 100 {
		return "", 0, fmt.Errorf("target %q: @cpu takes a whole percentage of CPU time, 1-100 (e.g. %s@cpu95)", name, name[:i])
	}
	return name[:i], pct, nil
}

// cpuQuota is a cgroup holding one server, its CPU time capped.
type cpuQuota struct {
	dir string
}

// cgroupRoots are where the cpu controller may be mounted: cgroup v1's own hierarchy, else the
// v2 unified one (where the controller must be enabled for the parent).
var cgroupRoots = []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup"}

// capCPU moves pid into a new cgroup allowed pct% of cpus CPUs' time. Threads the server
// starts later inherit the cgroup.
func capCPU(pid, pct, cpus int) (*cpuQuota, error) {
	quota := quotaPeriodUs * pct / 100 * max(cpus, 1)
	for _, root := range cgroupRoots {
		v1 := fileExists(filepath.Join(root, "cpu.cfs_quota_us"))
		v2 := fileExists(filepath.Join(root, "cgroup.subtree_control")) &&
			strings.Contains(readString(filepath.Join(root, "cgroup.subtree_control")), "cpu")
		if !v1 && !v2 {
			continue
		}
		q := &cpuQuota{dir: filepath.Join(root, fmt.Sprintf("bindrace-%d", pid))}
		if err := os.Mkdir(q.dir, 0o755); err != nil {
			return nil, fmt.Errorf("cpu cap: %w (creating a cgroup needs root)", err)
		}
		var err error
		if v1 {
			err = errors.Join(write(q.dir, "cpu.cfs_period_us", strconv.Itoa(quotaPeriodUs)),
				write(q.dir, "cpu.cfs_quota_us", strconv.Itoa(quota)))
		} else {
			err = write(q.dir, "cpu.max", fmt.Sprintf("%d %d", quota, quotaPeriodUs))
		}
		if err == nil {
			err = write(q.dir, "cgroup.procs", strconv.Itoa(pid))
		}
		if err != nil {
			q.remove()
			return nil, fmt.Errorf("cpu cap: %w", err)
		}
		return q, nil
	}
	return nil, errors.New("cpu cap: no cgroup with the cpu controller (looked in /sys/fs/cgroup/cpu and /sys/fs/cgroup)")
}

// remove deletes the cgroup once its processes are gone.
func (q *cpuQuota) remove() {
	if q != nil {
		os.Remove(q.dir)
	}
}

func write(dir, file, value string) error {
	return os.WriteFile(filepath.Join(dir, file), []byte(value), 0o644)
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

func readString(p string) string { b, _ := os.ReadFile(p); return string(b) }
