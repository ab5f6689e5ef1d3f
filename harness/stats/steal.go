package stats

// Windows the hypervisor spoiled. On a shared VM the hypervisor takes the CPUs away for whole
// seconds (steal time, readable per window in /proc/stat): outside both servers' control, and
// not what a race compares. A round of partner windows (A's window w and B's window w, a moment
// apart) is set aside, and measured again, when either window lost more than the limit of the
// machine's CPU time to steal. The rule reads only steal — never which side ran or what it
// measured — and drops both windows of the round, so what stays is a sample of rounds as
// unspoiled as each other on both sides (steal_test.go simulates it against a one-sided rule).

// StealLimitPct is the default limit: a window may lose at most 2% of the CPUs' time to steal.
// Busy time cannot stand in for it: during a window both CPUs are busy with the race's own
// traffic, and how much of it the kernel does differs by server.
const StealLimitPct = 2.0

// Spoiled reports whether a round whose windows lost stealA and stealB percent of the CPUs'
// time is set aside under limit (a negative limit sets nothing aside).
func Spoiled(stealA, stealB, limitPct float64) bool {
	return limitPct >= 0 && (stealA > limitPct || stealB > limitPct)
}
