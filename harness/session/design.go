package session

// Design is how a race planned its pairs, as summary.json records it (schema 3). Every
// statistical check looks at its pair deltas at the planned pair counts Looks; at look i a
// check's interval is the order statistics [x(n+1-c), x(c)] of its first n = Looks[i] deltas,
// c = Bounds[i] (no interval while c > n). A fixed design has one look, after all its pairs; a
// sequential one looks after every even pair count from MinPairs to MaxPairs and stops once
// every check is decided (stats.SequentialDesign explains the boundaries).
type Design struct {
	Kind     string  `json:"kind"` // DesignFixed or DesignSequential
	MinPairs int     `json:"min_pairs,omitempty"`
	MaxPairs int     `json:"max_pairs"`
	MaxTimeS float64 `json:"max_time_s,omitempty"` // the session's wall-clock budget; 0: none
	// Alpha is the one-sided error each check may spend in each direction over all its looks:
	// its share of the false-FAIL budget, (1 - family confidence) / fallible checks.
	Alpha    float64 `json:"alpha"`
	Spending string  `json:"spending,omitempty"` // how Alpha is spent over the looks
	Looks    []int   `json:"looks"`
	Bounds   []int   `json:"bounds"`
	// Spent is the exact probability, for a delta as likely above as below a limit, of crossing
	// a bound at or before each look: the error really spent (<= Alpha, bounds are discrete).
	Spent []float64 `json:"spent"`
}

// Design kinds.
const (
	DesignFixed      = "fixed"
	DesignSequential = "sequential"
)

// Look is one look of a check at its deltas: the pairs behind it, the interval at the look's
// bound (null: not yet bounded) and, in a gated check, what the look decided.
type Look struct {
	Pairs    int         `json:"pairs"`
	Interval *[2]float64 `json:"interval"`
	Decision string      `json:"decision,omitempty"` // PASS, FAIL, or "" (go on)
}

// Stop says why a race stopped measuring pairs.
type Stop struct {
	Reason   string  `json:"reason"` // one of the Stop* constants
	Pairs    int     `json:"pairs"`  // pairs measured
	ElapsedS float64 `json:"elapsed_s"`
}

// Why a race stopped.
const (
	StopDecided     = "decided"      // every check decided, or one FAILed
	StopMaxPairs    = "max_pairs"    // the design's last look came undecided
	StopMaxTime     = "max_time"     // the session's time ran out before the next look
	StopPlanned     = "planned"      // a fixed design measured all its pairs
	StopInterrupted = "interrupted"  // cut short between looks: INCOMPLETE
	StopSessionFail = "session_fail" // an earlier race of the session FAILed: the verdict was decided
)

// SetAside counts the rounds of partner windows a race set aside because the hypervisor stole
// more than the limit of the CPUs' time during one of them, and whose window it was: the rule
// reads steal only, so a build raced against itself should see about as many on each side.
type SetAside struct {
	LimitPct float64 `json:"limit_pct"`
	Rounds   int     `json:"rounds"`   // rounds set aside
	Measured int     `json:"measured"` // rounds measured in all, set-aside ones included
	ByA      int     `json:"by_a"`     // set-aside rounds whose A window was over the limit
	ByB      int     `json:"by_b"`     // ... whose B window was (a round can count for both)
}
