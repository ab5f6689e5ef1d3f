package setting

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/bindrace/bindrace/harness/internal/procfs"
	"github.com/bindrace/bindrace/harness/scenario"
)

// Bound is the range a resource setting may take on this machine, and the rule it follows from.
// Every flag, profile field and load config field that sets a resource is checked against the
// one Bound of its setting (Check) before anything starts, and --help prints it (Text).
type Bound struct {
	Setting  string  // as an Error names it: "connections"
	Min, Max float64 // inclusive
	Unit     string  // "", "requests/s", "s", "bytes"
	Rule     string  // why Max is where it is
}

// Durations are checked in seconds; these are their bounds.
const (
	maxStep    = 24 * time.Hour     // one step of a run: warm-up, window, settle, cooldown
	maxSession = 7 * 24 * time.Hour // a whole session's budget
	// maxLatency is the highest latency a run's histogram records (engine.histMax, 60 s).
	maxLatency = 60 * time.Second
)

// inFlightShare is the share of this machine's memory the requests in flight may take.
const inFlightShare = 4

// inFlightCost is what one request in flight costs the generator beyond its bytes: its send
// and start times (engine's conn ring, two int64).
const inFlightCost = 16

// machineFacts are what the bounds follow from here.
type machineFacts struct {
	memory int64 // bytes
	files  int64 // open-file hard limit (Go raises the soft one to it at start)
	ports  int   // ephemeral ports
	cpus   int
}

var facts = sync.OnceValue(func() machineFacts {
	f := machineFacts{memory: 1 << 30, files: 1024, ports: 28232, cpus: runtime.NumCPU()}
	var si unix.Sysinfo_t
	if unix.Sysinfo(&si) == nil && si.Totalram > 0 {
		f.memory = int64(si.Totalram) * int64(si.Unit)
	}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &rl) == nil && rl.Max > 0 && rl.Max < math.MaxInt32 {
		f.files = int64(rl.Max)
	}
	if n, ok := procfs.LocalPorts(); ok {
		f.ports = n
	}
	return f
})

// Bounds is the table: every resource setting, its bound on this machine and the rule.
func Bounds() []Bound {
	m := facts()
	conns := float64(min(m.files-64, int64(m.ports)))
	inFlight := float64(m.memory / inFlightShare / (inFlightCost + 64))
	step, session, latency := maxStep.Seconds(), maxSession.Seconds(), maxLatency.Seconds()
	return []Bound{
		{"connections", 1, conns, "", fmt.Sprintf("each is a socket and an ephemeral port to one address: the open-file limit (%d) less 64 for the harness's own files, and the %d ports of ip_local_port_range", m.files, m.ports)},
		{"pipelining", 1, min(inFlight, math.MaxInt32), "", fmt.Sprintf("every request in flight is held by the generator (its bytes and %d bytes of times): connections × pipelining × (request bytes + %d) within a quarter of this machine's %s of memory", inFlightCost, inFlightCost, iec(m.memory))},
		{"rate", math.SmallestNonzeroFloat64, 1e9, "requests/s", "each request has an intended send time in nanoseconds: above 10^9/s two share a nanosecond and the schedule cannot space them"},
		{"rate_fraction", math.SmallestNonzeroFloat64, 1, "", "a share of the closed-loop maximum"},
		{"duration", 1e-6, step, "s", "a measured window: from the microsecond latencies are recorded in to a day, beyond any run a profile plans"},
		{"warmup", 0, step, "s", "a step of a run: a day is beyond any run a profile plans"},
		{"settle", 0, step, "s", "a step of a run: a day is beyond any run a profile plans"},
		{"cooldown", 0, step, "s", "a step of a run: a day is beyond any run a profile plans"},
		{"busy_sample", 0, step, "s", "a step of a run: a day is beyond any run a profile plans"},
		{"max_time", 0, session, "s", "a whole session's budget: a week"},
		{"timeout", 1e-6, latency, "s", "a reply later than the latency histogram's top (60 s) could not be recorded"},
		{"lag_tolerance", 1e-6, latency, "s", "a send lag is recorded in a histogram whose top is 60 s"},
		{"pairs", 1, 1000, "", "the sign test's plan is exact over every look, in time that grows as pairs²: 1,000 plan in milliseconds, and at seconds a pair already take hours"},
		{"min_pairs", 2, 1000, "", "as pairs"},
		{"max_pairs", 2, 1000, "", "as pairs"},
		{"rounds", 1, 1000, "", "as pairs: a round runs every target once"},
		{"windows", 1, 1000, "", "windows of one run, each seconds long: as pairs"},
		{"workers", 1, float64(64 * m.cpus), "", fmt.Sprintf("each an event loop with its own epoll and buffers; past the %d CPUs they only take turns: 64 a CPU", m.cpus)},
		{"threads", 0, float64(64 * m.cpus), "", fmt.Sprintf("server threads: past the %d CPUs they only take turns: 64 a CPU", m.cpus)},
		{"count", 0, 1 << 40, "requests", "a count mode run sends them one batch at a time: 2^40 at millions a second is days"},
		{"warmup_requests", 0, 1e7, "requests", "every one must succeed before the run: ten million at the slowest scenario's thousands a second is hours"},
		{"cachegrind_n", 1, 1e7, "requests", "counted under valgrind, some 50 times slower: ten million is hours a count"},
		{"cachegrind_reps", 1, 15, "", "two that agree end the counts, else a third: 15 is far past any need"},
		{"size", 1, scenario.WSMaxMessage, "bytes", "a WebSocket message: the largest every target's server accepts (scenario.WSMaxMessage; a larger one is refused with close 1009)"},
		{"body", 0, 16 << 20, "bytes", "a request is kept whole, pipelining times: 16 MiB, the most a load config may carry"},
		{"db_scale", 1e-6, 100, "", "the data set is 4.1 million rows at 1: 100 is 410 million, the disk of a large machine"},
		{"db_pool", 0, 1000, "", "PostgreSQL's connections per target (0: the default): past 1,000 the server's own limit refuses them"},
	}
}

// BoundOf is setting name's bound; ok false when it has none.
func BoundOf(name string) (Bound, bool) {
	for _, b := range Bounds() {
		if b.Setting == name {
			return b, true
		}
	}
	return Bound{}, false
}

// Check refuses v outside b (NaN included): an Error naming b's setting.
func (b Bound) Check(v float64) error {
	if v >= b.Min && v <= b.Max {
		return nil
	}
	return Errorf("{"+b.Setting+"} %s is out of range: want %s (%s)", num(v, b.Unit), b.Text(), b.Rule)
}

// Text is the range as --help prints it: "1 to 19936 here".
func (b Bound) Text() string {
	if b.Min == math.SmallestNonzeroFloat64 {
		return fmt.Sprintf("above 0, at most %s here", num(b.Max, b.Unit))
	}
	return fmt.Sprintf("%s to %s here", num(b.Min, unitless(b.Unit)), num(b.Max, b.Unit))
}

// Check checks v against setting name's bound (nil when it has none).
func Check(name string, v float64) error {
	b, ok := BoundOf(name)
	if !ok {
		return nil
	}
	return b.Check(v)
}

// InFlight checks what connections × pipelining requests of reqBytes each hold in memory.
func InFlight(connections, pipelining int, reqBytes int64) error {
	m := facts()
	need := float64(connections) * float64(pipelining) * float64(reqBytes+inFlightCost)
	if need <= float64(m.memory/inFlightShare) {
		return nil
	}
	return Errorf("{connections} %d × {pipelining} %d of %d-byte requests would hold %s in flight: more than a quarter of this machine's %s of memory",
		connections, pipelining, reqBytes, iec(int64(math.Min(need, math.MaxInt64))), iec(m.memory))
}

// num writes v in unit, durations as Go writes them.
func num(v float64, unit string) string {
	var s string
	switch {
	case unit == "s" && math.Abs(v) < maxSession.Seconds()*1e3:
		return time.Duration(v * float64(time.Second)).String()
	case math.Abs(v) < 1e15:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		s = strconv.FormatFloat(v, 'g', 6, 64)
	}
	if unit == "" || unit == "s" {
		return s
	}
	return s + " " + unit
}

// unitless is unit when num writes no suffix for it (durations), else "".
func unitless(unit string) string {
	if unit == "s" {
		return unit
	}
	return ""
}

// iec writes a byte count in binary units.
func iec(b int64) string {
	v, units := float64(b), []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", v, units[i])
}
