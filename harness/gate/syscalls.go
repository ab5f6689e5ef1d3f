package gate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/bindrace/bindrace/harness/session"
	"github.com/bindrace/bindrace/harness/stats"
)

// SyscallMetric is the check of paced system calls per response, A against B; "baseline:" +
// SyscallMetric holds A to the baseline's.
const SyscallMetric = "syscalls"

// checkSyscalls applies Thresholds.SyscallMaxDeltaPct: A's paced system calls per response may
// exceed B's by at most that percent. Like instruction counts they are fixed by the protocol under
// the paced client, so no interval is involved; counts missing (tracepoints not permitted) are
// INCONCLUSIVE with the reason, never a silent pass.
func checkSyscalls(d *decision, s *session.Summary) {
	limit := s.Thresholds.SyscallMaxDeltaPct
	if limit == nil {
		return
	}
	c := session.Check{Metric: SyscallMetric, Limit: *limit, Bound: "max", Verdict: session.Inconclusive}
	sy := s.Syscalls
	a, b, ok := syscallsOf(sy, "a"), syscallsOf(sy, "b"), sy != nil && sy.Unsupported == ""
	switch {
	case !ok:
		c.Reason = "system calls per response (paced): not counted" + syscallWhy(sy)
	case b <= 0:
		c.Reason = "system calls per response (paced): B made none"
	default:
		delta := counterDelta(a, b)
		c.Delta = ptr(delta)
		c.Reason = fmt.Sprintf("system calls per response (paced, kernel %s): %s %.3f vs %s %.3f, delta %+.2f%% (median of %d fresh servers per side; spread %.2f%% / %.2f%%)%s, limit %+.2f%%",
			sy.Kernel, side(s.A, "A"), a, side(s.B, "B"), b, delta, sy.Reps, spreadOf(sy.Samples["a"]), spreadOf(sy.Samples["b"]),
			syscallDiff(sy.PerResponse["a"], sy.PerResponse["b"]), *limit)
		c.Verdict = session.Pass
		if delta > *limit {
			c.Verdict = session.Fail
		}
	}
	d.add(c)
}

// checkLiveSyscalls applies Thresholds.LiveSyscallMaxDeltaPct to the system calls per response
// the servers made under the race's live load. There the count depends on batching (at
// pipelining 10 one read carries many requests) and so on the moment, so it is judged like
// latency: the paired deltas' interval against the limit, one more statistical check in the
// family's false-FAIL budget (profile.FallibleChecks). Where the tracepoints could not be
// opened no pair has the figure, and the check is INCONCLUSIVE saying why.
func checkLiveSyscalls(d *decision, s *session.Summary) {
	limit := s.Thresholds.LiveSyscallMaxDeltaPct
	if limit == nil {
		return
	}
	c := pairedCheck(s, stats.MetricSyscalls, *limit, "max")
	if why, ok := s.CountersUnsupported[SyscallMetric]; ok && c.N == 0 { // the counter's name too
		c.Reason += ": " + why
	}
	d.add(c)
}

// checkBaselineSyscalls applies Thresholds.SyscallMaxGrowthPct to A's paced system calls against
// the baseline's. A baseline holds them only for paced shapes and with the kernel that made them:
// one without them, or counted on another kernel (whose calls differ), is refused for this check
// (INCONCLUSIVE, saying why), and the instruction checks still stand.
func checkBaselineSyscalls(d *decision, s *session.Summary, base *Baseline) {
	limit := s.Thresholds.SyscallMaxGrowthPct
	if limit == nil {
		return
	}
	c := session.Check{Metric: "baseline:" + SyscallMetric, Limit: *limit, Bound: "max", Verdict: session.Inconclusive}
	sy, old := s.Syscalls, base.Entry.Syscalls
	switch {
	case sy == nil || sy.Unsupported != "":
		c.Reason = "system calls per response vs baseline: not counted in this session" + syscallWhy(sy)
	case old == nil || !old.Paced || old.PerResponse[SyscallMetric] <= 0:
		c.Reason = fmt.Sprintf("system calls per response vs baseline: the baseline %s has no paced system-call counts (`make baseline` writes them)", base.Path)
	case old.Kernel != sy.Kernel:
		c.Reason = fmt.Sprintf("system calls per response vs baseline: refused, the baseline %s counted them on kernel %s and this session on %s (another kernel makes other calls)", base.Path, old.Kernel, sy.Kernel)
	case old.Pipelining != sy.Pipelining:
		c.Reason = fmt.Sprintf("system calls per response vs baseline: refused, the baseline's paced batches were of %d requests, this session's of %d", old.Pipelining, sy.Pipelining)
	default:
		cur, was := syscallsOf(sy, "a"), old.PerResponse[SyscallMetric]
		growth := counterDelta(cur, was)
		c.Delta = ptr(growth)
		c.Reason = fmt.Sprintf("system calls per response (paced, kernel %s) vs baseline %s: %.3f vs %.3f, growth %+.2f%%%s, limit %+.2f%%",
			sy.Kernel, base.Path, cur, was, growth, syscallDiff(sy.PerResponse["a"], old.PerResponse), *limit)
		c.Verdict = session.Pass
		if growth > *limit {
			c.Verdict = session.Fail
		}
	}
	d.add(c)
}

func syscallsOf(sy *session.SyscallCounts, key string) float64 {
	if sy == nil {
		return 0
	}
	return sy.PerResponse[key][SyscallMetric]
}

func syscallWhy(sy *session.SyscallCounts) string {
	if sy != nil && sy.Unsupported != "" {
		return " (" + sy.Unsupported + ")"
	}
	return ""
}

// syscallDiff names the calls whose counts per response differ most between a and b, e.g.
// "; by call: getppid +1.000, futex -0.004".
func syscallDiff(a, b map[string]float64) string {
	type diff struct {
		name string
		d    float64
	}
	var ds []diff
	seen := map[string]bool{}
	for _, m := range []map[string]float64{a, b} {
		for k := range m {
			if name, ok := strings.CutPrefix(k, "syscall:"); ok && !seen[k] {
				seen[k] = true
				if d := a[k] - b[k]; math.Abs(d) >= 0.005 {
					ds = append(ds, diff{name, d})
				}
			}
		}
	}
	sort.Slice(ds, func(i, j int) bool {
		if math.Abs(ds[i].d) != math.Abs(ds[j].d) {
			return math.Abs(ds[i].d) > math.Abs(ds[j].d)
		}
		return ds[i].name < ds[j].name
	})
	if len(ds) == 0 {
		return ""
	}
	var parts []string
	for _, x := range ds[:min(3, len(ds))] {
		parts = append(parts, fmt.Sprintf("%s %+.3f", x.name, x.d))
	}
	return "; by call: " + strings.Join(parts, ", ")
}

// spreadOf is (max−min)/min of xs in percent (0 with fewer than two).
func spreadOf(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	return rangePct(xs)
}
