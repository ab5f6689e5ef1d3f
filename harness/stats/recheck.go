package stats

import (
	"fmt"
	"math"

	"github.com/bindrace/bindrace/harness/session"
)

// CheckDeltas holds a decoded race summary (read from path) to the one thing its decoder cannot
// recompute without this package: each valid pair's delta_pct is the throughput delta of its
// runs (ThroughputDelta, what Figures stored). With wins, paired figures and the median tied to
// those deltas by session.DecodeSummary, the verdict then rests on the runs themselves. Every real
// saved summary agrees to the last bits; the tolerance only absorbs a re-encoded float.
func CheckDeltas(path string, s *session.Summary) error {
	for i, p := range s.Pairs {
		if !PairValid(p) {
			continue
		}
		if d := ThroughputDelta(p); math.Abs(d-p.DeltaPct) > 1e-9*math.Max(1, math.Abs(d)) {
			return &session.DecodeError{Path: path, Field: fmt.Sprintf("pairs[%d].delta_pct", i),
				Problem: fmt.Sprintf("%g, but its runs give %g (A %g, B %g responses/s)", p.DeltaPct, d, p.A.RPS, p.B.RPS)}
		}
	}
	return nil
}
