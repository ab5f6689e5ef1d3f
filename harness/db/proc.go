package db

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, which Linux fixes at 100 for /proc on every architecture we run on.
const clockTicks = 100

// procStat is what this package reads from /proc/<pid>/stat.
type procStat struct {
	pid    int
	ppid   int
	state  byte
	cpu    uint64 // utime + stime + cutime + cstime, in clock ticks
	starts uint64 // start time after boot, in clock ticks: tells a pid from a later reuse of it
}

// readStat parses /proc/<pid>/stat. Fields are counted after the last ')', since the command
// name in parentheses may itself hold spaces and parentheses.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(pid, b)
}

func parseStat(pid int, b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: malformed", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state), f[1] ppid, f[11..14] utime stime cutime cstime, f[19] starttime.
	if len(f) < 20 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	s := procStat{pid: pid, state: f[0][0]}
	var err error
	if s.ppid, err = strconv.Atoi(f[1]); err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: ppid: %w", pid, err)
	}
	for _, k := range []int{11, 12, 13, 14} {
		v, err := strconv.ParseUint(f[k], 10, 64)
		if err != nil {
			return procStat{}, fmt.Errorf("/proc/%d/stat: cpu times: %w", pid, err)
		}
		s.cpu += v
	}
	if s.starts, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return procStat{}, fmt.Errorf("/proc/%d/stat: starttime: %w", pid, err)
	}
	return s, nil
}

// processTree returns root and all its descendants that are alive, root first. PostgreSQL's
// children each call setsid(), so the process group does not find them; the parent links do.
func processTree(root int) ([]procStat, error) {
	rs, err := readStat(root)
	if err != nil {
		return nil, err
	}
	if rs.state == 'Z' {
		return nil, fmt.Errorf("pid %d has exited", root)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	byParent := map[int][]procStat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root {
			continue
		}
		s, err := readStat(pid)
		if err != nil || s.state == 'Z' {
			continue // exited while we looked, or a zombie nobody reaped yet
		}
		byParent[s.ppid] = append(byParent[s.ppid], s)
	}
	tree := []procStat{rs}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, byParent[tree[i].pid]...)
	}
	return tree, nil
}

// alive reports whether the process recorded in s still runs: same pid, same start time, and
// not a zombie (a container's init may never reap what PostgreSQL left behind).
func alive(s procStat) bool {
	now, err := readStat(s.pid)
	return err == nil && now.starts == s.starts && now.state != 'Z'
}

// killAll sends SIGKILL to every recorded process that still runs and waits up to timeout for
// them to be gone; it names those that are not.
func killAll(procs []procStat, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var left []string
		for _, p := range procs {
			if alive(p) {
				syscall.Kill(p.pid, syscall.SIGKILL)
				left = append(left, strconv.Itoa(p.pid))
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes still running after SIGKILL: %s", strings.Join(left, " "))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Usage is the resource use of a PostgreSQL cluster's processes together.
type Usage struct {
	// CPUSeconds is user + system time of the postmaster and all its children, including those
	// that have exited (the kernel adds a reaped child's time to its parent's cutime/cstime).
	// It only grows, so the difference of two samples is the cluster's CPU over that interval;
	// a backend that exits between the reads of one sample may be counted twice in it.
	CPUSeconds float64
	// RSSBytes sums VmRSS: shared buffers count once per process that touched them, so the sum
	// overstates the footprint (seed 002's caveat).
	RSSBytes int64
	// PSSBytes sums the proportional set size (smaps_rollup): each shared page is split among
	// the processes mapping it, so this sum is the cluster's real footprint.
	PSSBytes int64
	// Processes is how many processes were counted: the postmaster, its background workers
	// and one backend per client connection.
	Processes int
}

// treeUsage sums the usage of root and its descendants.
func treeUsage(root int) (Usage, error) {
	tree, err := processTree(root)
	if err != nil {
		return Usage{}, err
	}
	var u Usage
	var ticks uint64
	for _, p := range tree {
		ticks += p.cpu
		rss, pss, err := memoryOf(p.pid)
		if err != nil {
			if p.pid == root {
				return Usage{}, err
			}
			continue // a backend that exited after the scan
		}
		u.RSSBytes += rss
		u.PSSBytes += pss
		u.Processes++
	}
	u.CPUSeconds = float64(ticks) / clockTicks
	return u, nil
}

// memoryOf reads VmRSS from /proc/<pid>/status and Pss from /proc/<pid>/smaps_rollup.
func memoryOf(pid int) (rss, pss int64, err error) {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, err
	}
	rollup, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0, 0, err
	}
	rss, okR := kbField(status, "VmRSS:")
	pss, okP := kbField(rollup, "Pss:")
	if !okR || !okP {
		return 0, 0, errors.New("no VmRSS or Pss in /proc/" + strconv.Itoa(pid))
	}
	return rss, pss, nil
}

// kbField finds a "Key:   123 kB" line and returns the value in bytes.
func kbField(b []byte, key string) (int64, bool) {
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte(key))
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte("kB")))), 10, 64)
		return kb << 10, err == nil
	}
	return 0, false
}
