//go:build linux

package counters

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	perf "github.com/hodgesds/perf-utils"
	"golang.org/x/sys/unix"
)

// PerfSession is a set of enabled perf_event counters on one process. Stop disables them,
// reads them, closes them and returns the totals; it may be called once.
type PerfSession interface{ Stop() (Totals, error) }

type perfEvent struct {
	name string
	open func(pid, cpu int, opts ...int) (perf.Profiler, error)
}

var perfEvents = []perfEvent{
	{Cycles, perf.NewCPUCycleProfiler},
	{Instructions, perf.NewInstrProfiler},
	{Branches, perf.NewBranchInstrProfiler},
	{BranchMisses, perf.NewBranchMissesProfiler},
	{CacheReferences, perf.NewCacheRefProfiler},
	{CacheMisses, perf.NewCacheMissesProfiler},
	{TaskClockNs, perf.NewTaskClockProfiler},
	{ContextSwitches, perf.NewCtxSwitchesProfiler},
	{PageFaults, perf.NewPageFaultProfiler},
	{CPUMigrations, perf.NewCPUMigrationsProfiler},
}

type perfSession struct {
	pid         int
	profs       map[string][]perf.Profiler // counter -> one profiler per thread
	unsupported map[string]string
	threads     int
	notes       []string
	start       time.Time
	stopped     bool
}

// StartPerf opens the perf-mode counters on every thread of pid (each event with `inherit`, so
// threads created later are counted too) and enables them. A counter the kernel refuses is
// recorded in Totals.Unsupported with the reason, never as a zero; StartPerf fails only when the
// process is gone or no thread list can be read. Call it at Hooks.MeasureStart and Stop at
// Hooks.MeasureEnd.
func StartPerf(pid int) (PerfSession, error) {
	s, err := openEvents(pid, perfEvents)
	if err != nil {
		return nil, err // not a nil *perfSession in a non-nil interface
	}
	s.Enable()
	return s, nil
}

// EventSet is a PerfSession opened but not yet counting: open it before a window (opening can
// take seconds, tracepoints most), Enable it as the window opens, Stop it as it closes.
type EventSet interface {
	PerfSession
	Enable()
}

// openEvents opens events on every thread of pid (inherited by threads created later), off
// until Enable; an event the kernel refuses is in Totals.Unsupported with the reason.
func openEvents(pid int, events []perfEvent) (*perfSession, error) {
	tids, err := threadIDs(pid)
	if err != nil {
		return nil, err
	}
	s := &perfSession{pid: pid, profs: map[string][]perf.Profiler{}, unsupported: map[string]string{}}
	opened := map[int]bool{}
	openTids := func(tids []int) error {
		for _, tid := range tids {
			if opened[tid] {
				continue
			}
			gone := false
			for _, ev := range events {
				if _, bad := s.unsupported[ev.name]; bad {
					continue
				}
				p, err := ev.open(tid, -1)
				if err != nil {
					errno := errnoOf(err)
					if errno == unix.ESRCH {
						gone = true // the thread exited meanwhile: its work is no longer ours to count
						break
					}
					s.unsupported[ev.name] = reason(errno, err)
					for _, q := range s.profs[ev.name] {
						q.Close()
					}
					delete(s.profs, ev.name)
					continue
				}
				s.profs[ev.name] = append(s.profs[ev.name], p)
			}
			opened[tid] = true
			if !gone {
				s.threads++
			}
		}
		return nil
	}
	openTids(tids)
	// Threads created while we were opening: one created after its creator's events were opened
	// is inherited; one created between the listing and that open is not. The window is
	// microseconds, but say so when it happened rather than guess (opening it again could double
	// count an inherited thread).
	if again, err := threadIDs(pid); err == nil {
		var late []int
		for _, tid := range again {
			if !opened[tid] {
				late = append(late, tid)
			}
		}
		if len(late) > 0 {
			s.notes = append(s.notes, fmt.Sprintf("%d thread(s) started while the counters were being opened; they are counted only if started after their creator's counters opened", len(late)))
		}
	}
	if s.threads == 0 {
		s.closeAll()
		return nil, fmt.Errorf("perf: process %d has no live thread (exited?)", pid)
	}
	return s, nil
}

// Enable zeroes the counters and turns them on: the window opens.
func (s *perfSession) Enable() {
	s.start = time.Now()
	for _, ps := range s.profs {
		for _, p := range ps {
			p.Reset()
			p.Start()
		}
	}
}

func (s *perfSession) closeAll() {
	for _, ps := range s.profs {
		for _, p := range ps {
			p.Close()
		}
	}
}

// Stop disables the counters, reads and closes them.
func (s *perfSession) Stop() (Totals, error) {
	if s.stopped {
		return Totals{}, errors.New("perf: session already stopped")
	}
	s.stopped = true
	for _, ps := range s.profs {
		for _, p := range ps {
			p.Stop()
		}
	}
	t := Totals{
		Window:      time.Since(s.start),
		Values:      map[string]float64{},
		Unsupported: map[string]string{},
		Threads:     s.threads,
		Notes:       append([]string(nil), s.notes...),
	}
	for k, v := range s.unsupported {
		t.Unsupported[k] = v
	}
	names := make([]string, 0, len(s.profs))
	for name := range s.profs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var sum float64
		var read int
		var minShare = 1.0
		var lastErr error
		for _, p := range s.profs[name] {
			var v perf.ProfileValue
			if err := p.Profile(&v); err != nil {
				lastErr = err
				continue
			}
			read++
			val := float64(v.Value)
			if v.TimeRunning > 0 && v.TimeRunning < v.TimeEnabled {
				// multiplexed: scale to the whole enabled time, as perf stat does
				share := float64(v.TimeRunning) / float64(v.TimeEnabled)
				val /= share
				if share < minShare {
					minShare = share
				}
			} else if v.TimeRunning == 0 && v.TimeEnabled > 0 && v.Value == 0 && isHardware(name) {
				minShare = 0
			}
			sum += val
		}
		switch {
		case read == 0:
			t.Unsupported[name] = fmt.Sprintf("read failed: %v", lastErr)
		case minShare == 0:
			t.Unsupported[name] = "never scheduled on the PMU (too many events competing for counters; the NMI watchdog holds one: sysctl kernel.nmi_watchdog=0)"
		default:
			t.Values[name] = sum
			if minShare < 1 {
				t.Notes = append(t.Notes, fmt.Sprintf("%s multiplexed (ran %.0f%% of the window on some thread); scaled as perf stat does", name, minShare*100))
			}
		}
	}
	s.closeAll()
	return t, nil
}

func isHardware(name string) bool {
	for _, h := range HardwareCounters {
		if h == name {
			return true
		}
	}
	return false
}

// threadIDs lists /proc/<pid>/task.
func threadIDs(pid int) ([]int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("perf: no process %d", pid)
		}
		return nil, fmt.Errorf("perf: list threads of %d: %w", pid, err)
	}
	var tids []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	if len(tids) == 0 {
		return nil, fmt.Errorf("perf: process %d has no threads", pid)
	}
	return tids, nil
}

// perf-utils wraps the errno with %q, so errors.Is cannot see it: recover it from the text.
var knownErrnos = []syscall.Errno{unix.ENOENT, unix.EOPNOTSUPP, unix.ENODEV, unix.EACCES, unix.EPERM,
	unix.EINVAL, unix.ESRCH, unix.EMFILE, unix.ENFILE, unix.EBUSY, unix.E2BIG, unix.ENOSPC, unix.EFAULT}

func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	msg := err.Error()
	for _, e := range knownErrnos {
		if strings.Contains(msg, e.Error()) {
			return e
		}
	}
	return 0
}

func errnoName(e syscall.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return strconv.Itoa(int(e))
}

// reason turns the kernel's answer into a sentence a user can act on.
func reason(e syscall.Errno, err error) string {
	switch e {
	case unix.ENOENT:
		return "not supported: no PMU (ENOENT from perf_event_open; typical in a VM); count in cachegrind mode for deterministic counts"
	case unix.EOPNOTSUPP:
		return "not supported by this PMU (EOPNOTSUPP from perf_event_open)"
	case unix.ENODEV:
		return "not supported: no such PMU device (ENODEV from perf_event_open)"
	case unix.EACCES, unix.EPERM:
		return "permission denied (" + errnoName(e) + " from perf_event_open): " + paranoidAdvice()
	case unix.EINVAL:
		return "not supported: the kernel rejected the event (EINVAL from perf_event_open)"
	case unix.EMFILE, unix.ENFILE:
		return "too many open files (" + errnoName(e) + "); raise the limit, e.g. ulimit -n 65536"
	case 0:
		return fmt.Sprintf("perf_event_open failed: %v", err)
	default:
		return fmt.Sprintf("perf_event_open failed: %s (%v)", errnoName(e), e)
	}
}

// paranoidAdvice says what blocks perf_event_open and how to fix it.
func paranoidAdvice() string {
	level := "unknown"
	if b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid"); err == nil {
		level = strings.TrimSpace(string(b))
	}
	who := "not root"
	if os.Geteuid() == 0 {
		who = "root, but restricted (container without CAP_PERFMON/CAP_SYS_ADMIN, or a seccomp/LSM policy)"
	}
	return fmt.Sprintf("kernel.perf_event_paranoid is %s and this process is %s; run as root or `sudo sysctl kernel.perf_event_paranoid=1`", level, who)
}
