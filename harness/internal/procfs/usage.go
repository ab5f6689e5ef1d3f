package procfs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// Usage is a process's resource use so far: what the harness samples of a server (here, or
// on another host) and of itself.
type Usage struct {
	Pid          int
	CPUSeconds   float64 // user + system time of all its threads
	RSSBytes     int64   // resident set now
	PeakRSSBytes int64   // high-water mark of the resident set
	MinorFaults  uint64  // page faults served without I/O, all its threads
	// At is when it was read, by the clock of the host it was read on: two readings' CPU
	// seconds over the time between their At (not between the calls that asked, which may
	// have waited on a network) is the process's CPU share.
	At time.Time
	// Threads are each thread's CPU time, read in the same sample (after the process's own
	// stat and status); nil when ThreadsErr says why they could not be.
	Threads    []Thread
	ThreadsErr error
}

// ParseUsage turns the text of a process's stat and status files into Usage. A status without
// memory lines (a kernel thread, a zombie) is not a server's usage and is an error.
func ParseUsage(stat, status []byte) (Usage, error) {
	s, err := ParseStat(stat)
	if err != nil {
		return Usage{}, err
	}
	rss, okR := KB(status, "VmRSS")
	peak, okP := KB(status, "VmHWM")
	if !okR && !okP {
		return Usage{}, errors.New("status: no VmRSS or VmHWM line")
	}
	return Usage{Pid: s.Pid, CPUSeconds: s.CPUSeconds(), RSSBytes: rss, PeakRSSBytes: peak, MinorFaults: s.MinorFaults}, nil
}

// ReadUsage reads pid's Usage (Self: this process's), its threads' CPU times included.
func ReadUsage(pid int) (Usage, error) {
	at := time.Now()
	stat, err := os.ReadFile(path(pid, "stat"))
	if err != nil {
		return Usage{}, err
	}
	status, err := os.ReadFile(path(pid, "status"))
	if err != nil {
		return Usage{}, err
	}
	u, err := ParseUsage(stat, status)
	if err != nil {
		return Usage{}, fmt.Errorf("%s: %w", path(pid, ""), err)
	}
	u.At = at
	u.Threads, u.ThreadsErr = ReadThreads(pid)
	return u, nil
}

// KB finds the "Key:   123 kB" line of a status or smaps_rollup file and returns its value in
// bytes; false when there is no such line or it does not parse.
func KB(b []byte, key string) (int64, bool) {
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte(key+":"))
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte("kB")))), 10, 64)
		return kb << 10, err == nil
	}
	return 0, false
}

// Memory is pid's resident set (VmRSS) and proportional set size (Pss of smaps_rollup: each
// shared page split among the processes mapping it), in bytes.
func Memory(pid int) (rss, pss int64, err error) {
	status, err := os.ReadFile(path(pid, "status"))
	if err != nil {
		return 0, 0, err
	}
	rollup, err := os.ReadFile(path(pid, "smaps_rollup"))
	if err != nil {
		return 0, 0, err
	}
	rss, okR := KB(status, "VmRSS")
	pss, okP := KB(rollup, "Pss")
	if !okR || !okP {
		return 0, 0, errors.New("no VmRSS or Pss in " + path(pid, ""))
	}
	return rss, pss, nil
}
