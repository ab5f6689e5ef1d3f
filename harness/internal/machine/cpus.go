package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// DefaultCPUs is the harness's one default split of n CPUs between a server and the load
// generator (race, matrix, noise, calibrate and counters alike): on 2 CPUs the server gets "1" and the
// client "0"; on more, the server the upper half and the client the lower half; on one CPU
// nothing is pinned (both "").
func DefaultCPUs(n int) (server, client string) {
	switch {
	case n <= 1:
		return "", ""
	case n == 2:
		return "1", "0"
	default:
		h := n / 2
		return rangeList(h, n-1), rangeList(0, h-1)
	}
}

func rangeList(lo, hi int) string {
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// ParseCPUs parses a taskset-style list ("0", "1-3", "0,2,4-5").
func ParseCPUs(list string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(list, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("bad CPU list %q", list)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU list %q", list)
			}
		}
		for c := a; c <= b; c++ {
			if c >= 4096 {
				return nil, fmt.Errorf("bad CPU list %q", list)
			}
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty CPU list %q", list)
	}
	return out, nil
}

// CheckCPUs validates a list against the CPUs this process may use.
func CheckCPUs(list string) error {
	if list == "" {
		return nil
	}
	cpus, err := ParseCPUs(list)
	if err != nil {
		return err
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err == nil {
		for _, c := range cpus {
			if !set.IsSet(c) {
				return fmt.Errorf("CPU %d in %q is not available to this process (online: %d CPUs)", c, list, set.Count())
			}
		}
	}
	return nil
}

// Complement lists the CPUs of 0..n-1 not in list ("" when none are left: then unpinned).
func Complement(list string, n int) string {
	cpus, err := ParseCPUs(list)
	if err != nil {
		return ""
	}
	in := map[int]bool{}
	for _, c := range cpus {
		in[c] = true
	}
	var parts []string
	for c := 0; c < n; c++ {
		if !in[c] {
			parts = append(parts, strconv.Itoa(c))
		}
	}
	return strings.Join(parts, ",")
}

// Overlap reports whether two CPU lists share a CPU ("" is every CPU).
func Overlap(a, b string) bool {
	if a == "" || b == "" {
		return true
	}
	ca, err1 := ParseCPUs(a)
	cb, err2 := ParseCPUs(b)
	if err1 != nil || err2 != nil {
		return false
	}
	in := map[int]bool{}
	for _, c := range ca {
		in[c] = true
	}
	for _, c := range cb {
		if in[c] {
			return true
		}
	}
	return false
}

// CountCPUs is the number of CPUs in list, or all CPUs for "" (and for a list that does not
// parse: check lists with ParseCPUs or CheckCPUs first).
func CountCPUs(list string) int {
	if list == "" {
		return runtime.NumCPU()
	}
	c, err := ParseCPUs(list)
	if err != nil {
		return runtime.NumCPU()
	}
	return len(c)
}

// PinSelf pins every thread of this process (the harness, whose load generator runs in it) to
// list and sets GOMAXPROCS to its size; "" pins nothing. Threads created later inherit the mask. It returns a function that
// restores the previous state.
func PinSelf(list string) (restore func(), err error) {
	if list == "" {
		return func() {}, nil
	}
	cpus, err := ParseCPUs(list)
	if err != nil {
		return nil, err
	}
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, err
	}
	for _, c := range cpus {
		set.Set(c)
	}
	tids, _ := filepath.Glob("/proc/self/task/*")
	for _, t := range tids {
		tid, err := strconv.Atoi(filepath.Base(t))
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && tid == os.Getpid() {
			return nil, fmt.Errorf("pin load generator to CPUs %s: %w", list, err)
		}
	}
	prev := runtime.GOMAXPROCS(len(cpus))
	return func() {
		tids, _ := filepath.Glob("/proc/self/task/*")
		for _, t := range tids {
			if tid, err := strconv.Atoi(filepath.Base(t)); err == nil {
				unix.SchedSetaffinity(tid, &old)
			}
		}
		runtime.GOMAXPROCS(prev)
	}, nil
}
