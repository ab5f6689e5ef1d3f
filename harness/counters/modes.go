package counters

import (
	"fmt"
	"strings"
)

// The counters modes, by name.
const (
	ModePerf       = "perf"
	ModeCachegrind = "cachegrind"
	ModeSyscalls   = "syscalls"
	ModeSample     = "sample"
	ModeRSSGrowth  = "rss-growth"
)

// Mode is one way of counting a server's work per response. The table (Modes) is what the
// profile's counters setting, `bindrace counters --mode` and the gate read.
type Mode struct {
	Name string
	// Deterministic: the count repeats run to run (the server's own work under a paced client),
	// so a limit gates it A against B and against a baseline, beyond its resolution.
	// The others read the machine under live load, with its noise: reported, not gated.
	Deterministic bool
	// Alone: `bindrace counters --mode` counts it by itself (sample rides on perf: --sample).
	Alone bool
	Needs string // what the host must give it
	// Unsupported is how the mode says it cannot count here.
	Unsupported string
}

// Modes is every counters mode.
var Modes = []Mode{
	{Name: ModePerf, Alone: true,
		Needs:       "perf_event_open (a PMU for the hardware counters; most VMs have none)",
		Unsupported: "each counter the host cannot give is listed as unsupported with the kernel's reason, never as 0"},
	{Name: ModeCachegrind, Deterministic: true, Alone: true,
		Needs:       "valgrind and setarch (scripts/setup.sh installs them)",
		Unsupported: "a race is refused before any pair when valgrind cannot run here; a scenario it cannot count leaves the reason, and its instruction check is INCONCLUSIVE"},
	{Name: ModeSyscalls, Deterministic: true, Alone: true,
		Needs:       "tracefs and its syscall tracepoints (no PMU)",
		Unsupported: "the probe's reason replaces the counts, and the system-call checks are INCONCLUSIVE"},
	{Name: ModeRSSGrowth, Deterministic: true, Alone: true,
		Needs:       "the server's resident set from /proc (Linux; no PMU)",
		Unsupported: "the read's reason replaces the count, and its check is INCONCLUSIVE"},
	{Name: ModeSample, Needs: "the perf tool and perf_event_open's cpu-clock event (no PMU)",
		Unsupported: "the reason is listed as unsupported under \"sample\"; the run's other figures stand"},
}

// ModeNamed is the mode called name.
func ModeNamed(name string) (Mode, bool) {
	for _, m := range Modes {
		if m.Name == name {
			return m, true
		}
	}
	return Mode{}, false
}

// ModeNames are the names of the modes keep accepts (nil: all), quoted and joined for a message.
func ModeNames(keep func(Mode) bool) string {
	var q []string
	for _, m := range Modes {
		if keep == nil || keep(m) {
			q = append(q, fmt.Sprintf("%q", m.Name))
		}
	}
	return strings.Join(q, ", ")
}
