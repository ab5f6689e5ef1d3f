package cpuid

import (
	"fmt"
	"slices"
	"strings"
)

// CountedCPU is the CPU a deterministic count came from. The host's fields say which machine it
// was; the guest's say which code ran: valgrind shows the counted program a CPUID it
// synthesizes from the host's capabilities (not its vendor), and the program picks its code
// paths (memmove's, the runtime's) from that, minus the features the switches hid.
type CountedCPU struct {
	Vendor string   `json:"vendor"` // /proc/cpuinfo vendor_id
	Model  string   `json:"model"`  // model name
	Flags  []string `json:"flags"`  // /proc/cpuinfo flags
	// GuestVendor and GuestFeatures: what CPUID told a program under valgrind (the features
	// of internal/cpuid's table it reported).
	GuestVendor   string   `json:"guest_vendor"`
	GuestFeatures []string `json:"guest_features"`
	// Hidden: the guest's features the host lacks; Switches: the environment entries that hid
	// them from the counted server (GODEBUG=cpu.rdtscp=off, GLIBC_TUNABLES=...).
	Hidden   []string `json:"hidden"`
	Switches []string `json:"switches"`
}

// CPUUnknown is what a report says of counts recorded without their CPU (before bindrace
// recorded it).
const CPUUnknown = "CPU unknown"

// Describe is one line naming the CPU: the host, and the code paths its guest saw.
func (c *CountedCPU) Describe() string {
	if c == nil {
		return CPUUnknown
	}
	s := fmt.Sprintf("%s (%s); under valgrind: %s, %s", c.Model, c.Vendor, c.GuestVendor, strings.Join(c.GuestFeatures, " "))
	if len(c.Switches) > 0 {
		s += "; switched off: " + strings.Join(c.Switches, " ")
	}
	return s
}

// RunsOtherCode says how c's counted programs ran other code paths than o's: what the guest
// saw, or what the switches hid, differs; "" when neither does. The host's vendor and model do
// not enter: two hosts whose guests saw the same features under the same switches run the
// same instructions.
func (c *CountedCPU) RunsOtherCode(o *CountedCPU) string {
	var diffs []string
	if only, other := setDiff(c.GuestFeatures, o.GuestFeatures), setDiff(o.GuestFeatures, c.GuestFeatures); len(only)+len(other) > 0 {
		diffs = append(diffs, fmt.Sprintf("features under valgrind: only in the first %q, only in the second %q", only, other))
	}
	if only, other := setDiff(countingHidden(c.Hidden), countingHidden(o.Hidden)), setDiff(countingHidden(o.Hidden), countingHidden(c.Hidden)); len(only)+len(other) > 0 {
		diffs = append(diffs, fmt.Sprintf("features switched off: only in the first %q, only in the second %q", only, other))
	}
	return strings.Join(diffs, "; ")
}

// countNeutral are the features whose switch leaves a count as it was. rdtscp only picks which
// timestamp instruction runtime.cputicks runs (RDTSCP, or LFENCE and RDTSC: a few instructions a
// call), and cputicks runs a handful of times in binding's whole process and 0.15 times a
// response in fasthttp's at pipelining 1 (counted on the AMD VM of docs/counters.md): under
// 0.01% of either count, against a +1% limit. So counts of hosts with and without RDTSCP compare.
var countNeutral = map[string]bool{"rdtscp": true}

// countingHidden is hidden less the count-neutral features.
func countingHidden(hidden []string) []string {
	out := []string{}
	for _, f := range hidden {
		if !countNeutral[f] {
			out = append(out, f)
		}
	}
	return out
}

// setDiff is a's members not in b.
func setDiff(a, b []string) []string {
	out := []string{}
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
