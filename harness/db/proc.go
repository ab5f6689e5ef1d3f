package db

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bindrace/bindrace/harness/internal/procfs"
)

// killAll sends SIGKILL to every recorded process that still runs and waits up to timeout for
// them to be gone; it names those that are not.
func killAll(procs []procfs.Stat, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		var left []string
		for _, p := range procs {
			if procfs.Alive(p) {
				syscall.Kill(p.Pid, syscall.SIGKILL)
				left = append(left, strconv.Itoa(p.Pid))
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

// treeUsage sums the usage of root and its descendants (procfs.Tree: PostgreSQL's children
// each call setsid(), so the process group does not find them).
func treeUsage(root int) (Usage, error) {
	tree, err := procfs.Tree(root)
	if err != nil {
		return Usage{}, err
	}
	var u Usage
	for _, p := range tree {
		u.CPUSeconds += p.CPUSecondsWithReaped()
		rss, pss, err := procfs.Memory(p.Pid)
		if err != nil {
			if p.Pid == root {
				return Usage{}, err
			}
			continue // a backend that exited after the scan
		}
		u.RSSBytes += rss
		u.PSSBytes += pss
		u.Processes++
	}
	return u, nil
}
