// Package procfs is the harness's one reader of Linux's /proc: a process's stat line (CPU
// times, parent, group, start time), the kB fields of its status and smaps_rollup files, what
// a process costs (Usage), a process and its descendants, the sockets listening on a port and
// who holds them, and the machine's CPU times. Parsers take the files' text, so what is read
// over ssh from another host (harness/remote) parses exactly as what is read here; that is
// why this is not github.com/prometheus/procfs, whose parsers read only a mounted /proc.
package procfs

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, which Linux fixes at 100 for /proc on every architecture we run on.
const clockTicks = 100

// Self is the pid that names this process in the Read functions (/proc/self).
const Self = 0

// Stat is what the harness reads of /proc/<pid>/stat.
type Stat struct {
	Pid, PPid, Pgrp int
	State           byte   // R, S, D, Z, ...
	MinorFaults     uint64 // page faults served without I/O (all its threads)
	UTime, STime    uint64 // clock ticks spent by the process (all its threads)
	CUTime, CSTime  uint64 // clock ticks of its children that it reaped
	StartTime       uint64 // clock ticks after boot: tells a pid from a later reuse of it
}

// CPUSeconds is the process's own user + system time.
func (s Stat) CPUSeconds() float64 { return float64(s.UTime+s.STime) / clockTicks }

// CPUSecondsWithReaped adds the time of the children it reaped: a tree's figure that only
// grows while children come and go.
func (s Stat) CPUSecondsWithReaped() float64 {
	return float64(s.UTime+s.STime+s.CUTime+s.CSTime) / clockTicks
}

// Zombie says the process has exited and nobody reaped it yet.
func (s Stat) Zombie() bool { return s.State == 'Z' }

// ParseStat parses the text of a stat file. Fields are counted after the last ')', since the
// command name in parentheses may itself hold spaces and parentheses.
func ParseStat(b []byte) (Stat, error) {
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return Stat{}, fmt.Errorf("stat: malformed")
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return Stat{}, fmt.Errorf("stat: malformed pid")
	}
	// f[0] is field 3 (state), f[1] ppid, f[2] pgrp, f[7] minflt, f[11..14] utime stime cutime
	// cstime, f[19] starttime.
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("stat: malformed: %d fields", len(f))
	}
	s := Stat{Pid: pid, State: f[0][0]}
	ints := []*int{&s.PPid, &s.Pgrp}
	for k, p := range ints {
		if *p, err = strconv.Atoi(f[1+k]); err != nil {
			return Stat{}, fmt.Errorf("stat: field %d: %w", 4+k, err)
		}
	}
	uints := map[int]*uint64{7: &s.MinorFaults, 11: &s.UTime, 12: &s.STime, 13: &s.CUTime, 14: &s.CSTime, 19: &s.StartTime}
	for k, p := range uints {
		if *p, err = strconv.ParseUint(f[k], 10, 64); err != nil {
			return Stat{}, fmt.Errorf("stat: field %d: %w", 3+k, err)
		}
	}
	return s, nil
}

// ReadStat reads and parses pid's stat file (Self: this process's).
func ReadStat(pid int) (Stat, error) { return readStat(pid, "stat") }

// readStat reads and parses a stat file under pid's directory.
func readStat(pid int, file string) (Stat, error) {
	b, err := os.ReadFile(path(pid, file))
	if err != nil {
		return Stat{}, err
	}
	s, err := ParseStat(b)
	if err != nil {
		return Stat{}, fmt.Errorf("%s: %w", path(pid, file), err)
	}
	return s, nil
}

// ReadThreadStat reads and parses the stat file of pid's thread tid: that thread's own CPU time
// (pid's stat sums all its threads).
func ReadThreadStat(pid, tid int) (Stat, error) {
	return readStat(pid, "task/"+strconv.Itoa(tid)+"/stat")
}

// ReadThreadRunDelay is the time pid's thread tid has spent runnable and waiting for a CPU,
// from its schedstat (the scheduler's statistics: on-CPU ns, run-queue wait ns, timeslices).
func ReadThreadRunDelay(pid, tid int) (time.Duration, error) {
	file := path(pid, "task/"+strconv.Itoa(tid)+"/schedstat")
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	return ParseRunDelay(b)
}

// ParseRunDelay reads the run-queue wait of a schedstat line.
func ParseRunDelay(b []byte) (time.Duration, error) {
	f := strings.Fields(string(b))
	if len(f) != 3 {
		return 0, fmt.Errorf("schedstat %q: want 3 fields", b)
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || ns < 0 {
		return 0, fmt.Errorf("schedstat %q: run-queue wait is not a count of ns", b)
	}
	return time.Duration(ns), nil
}

// path is /proc/<pid>/<file>, /proc/self/<file> for Self.
func path(pid int, file string) string {
	if pid == Self {
		return "/proc/self/" + file
	}
	return "/proc/" + strconv.Itoa(pid) + "/" + file
}
