package procfs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Thread is one thread of a process as its /proc/PID/task/TID/stat and schedstat show it.
type Thread struct {
	Tid        int
	Comm       string  // the thread's name (prctl PR_SET_NAME, pthread_setname_np)
	CPUSeconds float64 // user + system time of this thread alone (stat)
	// WaitSeconds is the time it was ready to run but waited for a CPU (schedstat's run-queue
	// delay), when WaitKnown: a kernel without CONFIG_SCHED_INFO has no schedstat.
	WaitSeconds float64
	WaitKnown   bool
}

// MaxThreads bounds the threads one usage read carries. Every read at a window's edge lists
// them all, and a remote read sends them over ssh (a stat line is 250-1,200 bytes): a server
// of thousands of threads gets its CPU and RSS read without them, and ThreadsErr says why.
const MaxThreads = 512

// TooManyThreads is the error of a process of n threads, over MaxThreads.
func TooManyThreads(n int) error {
	return fmt.Errorf("%d threads, over the %d a usage read lists", n, MaxThreads)
}

// ParseThreads turns the text of a process's threads' stat files, each followed by the text of
// the same thread's schedstat, into Threads. An empty stat is a thread that exited between the
// listing and the read, and is left out; an empty schedstat leaves its wait unknown.
func ParseThreads(files []string) ([]Thread, error) {
	if len(files)%2 != 0 {
		return nil, fmt.Errorf("task: %d files, want a stat and a schedstat for each thread", len(files))
	}
	out := make([]Thread, 0, len(files)/2)
	for i := 0; i < len(files); i += 2 {
		if strings.TrimSpace(files[i]) == "" {
			continue
		}
		s, err := ParseStat([]byte(files[i]))
		if err != nil {
			return nil, fmt.Errorf("task: %w", err)
		}
		th := Thread{Tid: s.Pid, Comm: s.Comm, CPUSeconds: s.CPUSeconds()}
		if sched := strings.TrimSpace(files[i+1]); sched != "" {
			if th.WaitSeconds, err = parseSchedWait(sched); err != nil {
				return nil, fmt.Errorf("task %d: %w", s.Pid, err)
			}
			th.WaitKnown = true
		}
		out = append(out, th)
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
	files := make([]string, 0, 2*len(entries))
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		for _, name := range []string{"stat", "schedstat"} {
			b, err := os.ReadFile(dir + "/" + e.Name() + "/" + name)
			if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ESRCH) {
				return nil, err
			}
			files = append(files, string(b)) // empty: it exited after the listing, or no schedstat
		}
	}
	th, err := ParseThreads(files)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return th, nil
}

// ReadThread reads one thread, tid, of pid (the main thread's id is pid's).
func ReadThread(pid, tid int) (Thread, error) {
	dir := path(pid, "task/"+strconv.Itoa(tid))
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Thread{}, err
	}
	sched, err := os.ReadFile(dir + "/schedstat")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return Thread{}, err
	}
	th, err := ParseThreads([]string{string(stat), string(sched)})
	if err != nil {
		return Thread{}, fmt.Errorf("%s: %w", dir, err)
	}
	return th[0], nil
}

// parseSchedWait reads a schedstat's "on-CPU-ns run-queue-ns timeslices" into the run-queue
// seconds.
func parseSchedWait(text string) (float64, error) {
	f := strings.Fields(text)
	if len(f) != 3 {
		return 0, fmt.Errorf("schedstat %q: want three numbers", text)
	}
	ns, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("schedstat %q: %w", text, err)
	}
	return float64(ns) / 1e9, nil
}
