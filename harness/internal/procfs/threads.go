package procfs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Thread is one thread of a process as its /proc/PID/task/TID/stat shows it.
type Thread struct {
	Tid        int
	Comm       string  // the thread's name (prctl PR_SET_NAME, pthread_setname_np)
	CPUSeconds float64 // user + system time of this thread alone
}

// MaxThreads bounds the threads one usage read carries. Every read at a window's edge lists
// them all, and a remote read sends them over ssh (a stat line is 250-1,200 bytes): a server
// of thousands of threads gets its CPU and RSS read without them, and ThreadsErr says why.
const MaxThreads = 512

// TooManyThreads is the error of a process of n threads, over MaxThreads.
func TooManyThreads(n int) error {
	return fmt.Errorf("%d threads, over the %d a usage read lists", n, MaxThreads)
}

// ParseThreads turns the text of a process's threads' stat files into Threads. An empty text
// is a thread that exited between the listing and the read, and is left out.
func ParseThreads(stats []string) ([]Thread, error) {
	out := make([]Thread, 0, len(stats))
	for _, text := range stats {
		if strings.TrimSpace(text) == "" {
			continue
		}
		s, err := ParseStat([]byte(text))
		if err != nil {
			return nil, fmt.Errorf("task: %w", err)
		}
		out = append(out, Thread{Tid: s.Pid, Comm: s.Comm, CPUSeconds: s.CPUSeconds()})
	}
	if len(out) == 0 {
		return nil, errors.New("task: no thread")
	}
	return out, nil
}

// ReadThreads reads pid's threads (Self: this process's).
func ReadThreads(pid int) ([]Thread, error) {
	dir := path(pid, "task")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	if len(entries) > MaxThreads {
		return nil, TooManyThreads(len(entries))
	}
	stats := make([]string, 0, len(entries))
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(dir + "/" + e.Name() + "/stat")
		if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ESRCH) {
			return nil, err
		}
		stats = append(stats, string(b)) // empty: it exited after the listing
	}
	th, err := ParseThreads(stats)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return th, nil
}
