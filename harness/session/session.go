// Package session is what a race or matrix leaves on disk: every measured run (raw.json), the
// statistics and verdict (summary.json) and the environment (manifest.json). Reports and the
// gate are re-rendered from these files alone, so they hold everything a reader needs.
package session

import "time"

// SchemaVersion is the version of summary.json's layout. 2: order-statistic intervals at a
// recorded level (ci_pct, ci_level, paired), machine-readable checks, per-side conditions.
// 3: the race's design (fixed or sequential), every look of every check, why the race stopped,
// client-bound runs at their bound in the throughput interval (saturation_pct).
const SchemaVersion = 3

// Verdicts and the exit codes the CLI maps them to.
const (
	Pass         = "PASS"         // exit 0
	Fail         = "FAIL"         // exit 1
	Inconclusive = "INCONCLUSIVE" // exit 3
	Incomplete   = "INCOMPLETE"   // the session was cut short (error, crash, Ctrl-C); exit 2
	// Context is the verdict of a figure that is measured and reported beside the checks but
	// gates nothing (Summary.Context): it cannot decide at the noise of the machine, or it
	// describes the machine rather than the server (a saturated closed loop's p99).
	Context = "context"
)

// Run is one fresh server process measured once.
type Run struct {
	Target   string `json:"target"`
	Scenario string `json:"scenario"`
	Slot     int    `json:"slot"` // position within its pair or matrix round, from 0

	RPS          float64          `json:"rps"`
	Responses    int64            `json:"responses"`
	DurationS    float64          `json:"duration_s"`
	P50Ms        float64          `json:"p50_ms"`
	P95Ms        float64          `json:"p95_ms"`
	P99Ms        float64          `json:"p99_ms"`
	P999Ms       float64          `json:"p999_ms"`
	MaxMs        float64          `json:"max_ms"`
	Errors       int64            `json:"errors"`
	ErrorsByKind map[string]int64 `json:"errors_by_kind,omitempty"`

	ServerCPUPct    float64 `json:"server_cpu_pct"`     // % of one core during the window
	RPSPerCPUSecond float64 `json:"rps_per_cpu_second"` // responses per server CPU-second
	ClientBound     bool    `json:"client_bound"`       // server not saturated: the client limited the run
	// SaturationPct is the share of the CPU the server was allotted (its CPUs or threads, under
	// a quota its cap) that it used during the window; since schema 3.
	SaturationPct float64 `json:"saturation_pct,omitempty"`
	RSSMiB        float64 `json:"rss_mib"` // after warm-up
	PeakRSSMiB    float64 `json:"peak_rss_mib"`
	HeapMiB       float64 `json:"heap_mib,omitempty"` // Go or V8 heap, when the target reports it
	StartupMs     float64 `json:"startup_ms"`         // spawn to first valid response
	ArtifactBytes int64   `json:"artifact_bytes"`
	Threads       int     `json:"threads,omitempty"` // threads the server said it serves with
	// Windows is each measured window's throughput when the run was measured in several
	// (interleaved with the other side's); RPS is then their total over their total time.
	// Windows set aside (PerWindow) are not in it.
	Windows []float64 `json:"windows,omitempty"`
	// PerWindow is every measured window of the run, set-aside ones included (sessions before
	// it have none).
	PerWindow []Window `json:"per_window,omitempty"`

	// The machine in the second before the run: share of all CPUs' time not idle, and stolen by
	// the hypervisor (from /proc/stat). A busy or stolen machine measures its neighbours too.
	BusyPct  float64 `json:"busy_pct"`
	StealPct float64 `json:"steal_pct"`

	// How the load looked from both ends during the window: the load generator's responses per
	// read and batches in flight, and the server's own counts per response (the binding's loops:
	// wakeups, reads, sends, batches into Go), when it keeps them.
	ClientRespPerRead float64            `json:"client_responses_per_read,omitempty"`
	ClientInFlight    float64            `json:"client_batches_in_flight,omitempty"`
	Server            map[string]float64 `json:"server,omitempty"`

	// Counters per response for this run (perf mode), by name; unsupported ones are absent here
	// and listed with their reason in Summary.CountersUnsupported.
	Counters map[string]float64 `json:"counters,omitempty"`
	// System calls and context switches of the server's threads per response under the live
	// load (tracepoints, when the profile counts syscalls); a race compares them pair by pair.
	SyscallsPerResponse        float64 `json:"syscalls_per_response,omitempty"`
	ContextSwitchesPerResponse float64 `json:"context_switches_per_response,omitempty"`
	// Sample is where the server's CPU time went over the run's windows (sample counters).
	Sample *Sampled `json:"sample,omitempty"`
	// Readings are what the rig's probes read over the kept windows without a field of their
	// own, by key: each says how reports name it, so a new reading changes only the probe that
	// takes it (stats and the reports show every one).
	Readings map[string]Reading `json:"readings,omitempty"`
	Error    string             `json:"error,omitempty"` // what went wrong, if the run did not finish

	// DB is a database scenario's reset time and PostgreSQL and load generator resources.
	DB *DBRun `json:"db,omitempty"`
	// Open is set for a run at a fixed rate (open loop); Hist is its latency histogram (µs) in
	// HdrHistogram's compressed encoding, base64: kept in raw.json, left out of summary.json.
	Open *OpenLoop `json:"open_loop,omitempty"`
	Hist string    `json:"hist,omitempty"`
}

// Valid reports whether a run finished and measured something. A run that crashed or was cut
// short stays in the session (nothing is dropped quietly) but cannot enter the statistics.
func (r Run) Valid() bool { return r.Error == "" && r.RPS > 0 }

// Valid reports whether both runs of a pair are valid, so its delta means something.
func (p Pair) Valid() bool { return p.A.Valid() && p.B.Valid() }

// Window is one measured window of a run: its throughput, the server's CPU and the share of all
// CPUs' time the hypervisor stole during it (from /proc/stat at its edges), and why it was set
// aside with its partner window, when it was: a set-aside window counts in none of the run's
// figures.
type Window struct {
	RPS          float64 `json:"rps"`
	ServerCPUPct float64 `json:"server_cpu_pct"`
	StealPct     float64 `json:"steal_pct"`
	SetAside     string  `json:"set_aside,omitempty"`
	// ThreadELUPct is each thread's event loop utilization over the window, by thread id (0:
	// the main thread), for a runtime that has event loops and reported them (node targets).
	ThreadELUPct map[string]float64 `json:"thread_elu_pct,omitempty"`
}

// Pair is one AB or BA pair of a race.
type Pair struct {
	Index    int     `json:"index"`
	Order    string  `json:"order"` // "AB" or "BA"
	DeltaPct float64 `json:"delta_pct"`
	A        Run     `json:"a"`
	B        Run     `json:"b"`
}

// Shape is what was run: enough to reproduce it.
type Shape struct {
	Profile     string   `json:"profile"`
	Scenario    string   `json:"scenario"`
	Connections int      `json:"connections"`
	Pipelining  int      `json:"pipelining"`
	Workers     int      `json:"workers"`
	Loadgen     string   `json:"loadgen,omitempty"` // builtin or wrk
	Pairs       int      `json:"pairs,omitempty"`
	Windows     int      `json:"windows,omitempty"`     // measured windows per run (interleaved within a pair when > 1)
	PairsAsked  int      `json:"pairs_asked,omitempty"` // before rounding up to an even count
	Rounds      int      `json:"rounds,omitempty"`
	Seed        int64    `json:"seed,omitempty"`
	WarmupS     float64  `json:"warmup_s"`
	DurationS   float64  `json:"duration_s"`
	CooldownS   float64  `json:"cooldown_s"`
	CPUsServer  string   `json:"cpus_server"`
	CPUsClient  string   `json:"cpus_client"`
	Command     []string `json:"command"` // the full command line that reproduces the session
}

// Stats summarise one side's runs.
type SideStats struct {
	MedianRPS    float64 `json:"median_rps"`
	MeanRPS      float64 `json:"mean_rps"`
	StddevRPS    float64 `json:"stddev_rps"`
	CVPct        float64 `json:"cv_pct"`
	MinRPS       float64 `json:"min_rps"`
	MaxRPS       float64 `json:"max_rps"`
	MedianP95Ms  float64 `json:"median_p95_ms"`
	MedianP99Ms  float64 `json:"median_p99_ms"`
	MedianCPUPct float64 `json:"median_server_cpu_pct"`
	MedianRSSMiB float64 `json:"median_rss_mib"`
	MedianHeap   float64 `json:"median_heap_mib"`
	Errors       int64   `json:"errors"`
}

// Figure is one row of a race's runtime table: each side's median over its valid runs that
// reported the figure (null: none did) and A's delta to B in percent (null without both; for
// throughput the median of the per-pair deltas, the headline's).
type Figure struct {
	A        *float64 `json:"a"`
	B        *float64 `json:"b"`
	DeltaPct *float64 `json:"delta_pct"`
	// A row of a reading (Run.Readings) says how to name and read it; the others' names are
	// the reports' own.
	Label         string `json:"label,omitempty"`
	LowerIsBetter bool   `json:"lower_is_better,omitempty"`
	Context       bool   `json:"context,omitempty"`
	// NotReadA and NotReadB say why a reading's side has no value (its runs' Reading.NotRead),
	// so a report can say it rather than show a bare dash.
	NotReadA string `json:"not_read_a,omitempty"`
	NotReadB string `json:"not_read_b,omitempty"`
}

// Reading is one figure a probe read over a run's kept windows, with how reports name it.
type Reading struct {
	Value         float64 `json:"value"`
	Label         string  `json:"label"` // e.g. "minor page faults per response"
	LowerIsBetter bool    `json:"lower_is_better,omitempty"`
	// Context says neither higher nor lower is better (a thread's CPU share): a figure to read
	// beside the others, whose delta is no gain or loss.
	Context bool `json:"context,omitempty"`
	// NotRead is why the run has no value (Value then means nothing): reading it failed, or
	// the run's runtime gives no such figure (NotApplicable: a Go server has no event loop
	// utilization), which a table of two such sides leaves out.
	NotRead       string `json:"not_read,omitempty"`
	NotApplicable bool   `json:"not_applicable,omitempty"`
}

// Side is what one side of a race ran as: the conditions the gate compares must be equal.
type Side struct {
	Target  string            `json:"target"`
	Threads int               `json:"threads"` // server threads it reported serving with; 0 = unknown
	CPUs    string            `json:"cpus"`    // the server's taskset list
	Build   map[string]string `json:"build"`   // kind (release, plain, npm, go-module, external), hashes, versions
}

// Paired is one metric's per-pair deltas, (A-B)/B in percent, summarised: their median and the
// order-statistic interval of that median at the session's ci_level.
type Paired struct {
	MedianPct  float64     `json:"median_pct"`
	CIPct      *[2]float64 `json:"ci_pct"`     // null: too few pairs for a bounded interval
	Confidence float64     `json:"confidence"` // the interval's real coverage (>= ci_level); 0 without one
	N          int         `json:"n"`          // pairs behind it
	MinPct     float64     `json:"min_pct"`
	MaxPct     float64     `json:"max_pct"`
	// Looks is the interval at every look of the race's design that its pairs reached (schema
	// 3); CIPct is the last one's. For throughput (rps), client-bound runs enter each interval
	// at their bound: BoundedRuns says how many (stats/clientbound.go).
	Looks       []Look `json:"looks,omitempty"`
	BoundedRuns int    `json:"bounded_runs,omitempty"`
}

// Resolution is the smallest regression a race's own noise lets it detect, from the interval of
// the throughput metric it decides on (stats.ResolutionOf).
type Resolution struct {
	Metric       string  `json:"metric"`
	HalfWidthPct float64 `json:"half_width_pct"` // the interval's wider half: the noise a verdict must clear
	// DetectablePct is the slowdown that FAILs about half the time at the threshold: its
	// interval then ends near the threshold, |threshold| + the upper half-width.
	DetectablePct float64 `json:"detectable_regression_pct"`
	// PairsForThreshold is about how many pairs would narrow the interval to |threshold| at this
	// spread (width ∝ 1/√pairs), so an unchanged build could PASS; 0 for a zero threshold.
	PairsForThreshold int `json:"pairs_for_threshold"`
}

// Check is one gated comparison, as a program reads it; Reasons holds the same for people.
type Check struct {
	Metric     string      `json:"metric"`  // rps, rps_per_cpu_second, p99_ms, errors, instructions, baseline:instructions, ...
	Verdict    string      `json:"verdict"` // PASS, FAIL or INCONCLUSIVE
	Delta      *float64    `json:"delta"`   // percent (a count for errors); null when not measured
	Interval   *[2]float64 `json:"interval"`
	Confidence *float64    `json:"confidence"` // real coverage of interval; null for deterministic checks
	Limit      float64     `json:"limit"`
	Bound      string      `json:"bound"` // "min": delta must stay at or above limit; "max": at or below
	N          int         `json:"n,omitempty"`
	Reason     string      `json:"reason"`
	// Statistical checks (schema 3): every look with what it decided, the pairs at the deciding
	// look (0: undecided), and for an undecided check about how many pairs would decide it (0:
	// its deltas lean to neither side of the limit).
	Looks       []Look `json:"looks,omitempty"`
	DecidedAt   int    `json:"decided_at,omitempty"`
	PairsNeeded int    `json:"pairs_needed,omitempty"`
}

// Summary is summary.json of a race: the verdict and the figures it rests on, as four records
// each written by one package and read by the rest. They are embedded, so their fields sit side
// by side in the file as they always have (the schema did not change with the split).
type Summary struct {
	Decision // the verdict and the checks it rests on: gate.Apply
	Raced    // what was raced, how, when and what was noticed: the race kind (harness/kinds)
	Figures  // what the pairs say: stats.Figures
	Counts   // the counts per response of both sides: the race kind's counts step
}

// RaceOf is a race's summary before its kind describes it and its gate decides: the pairs'
// figures f, the design d and the limits th they were computed under, the sides and scenario
// the pairs ran, what the pairs themselves warn of and, when the runs carried perf counters,
// their medians as the race's counts.
func RaceOf(f Figures, th Thresholds, d *Design) Summary {
	s := Summary{Raced: Raced{SchemaVersion: SchemaVersion, Kind: "race", Thresholds: th, Design: d, Warnings: f.PairWarnings}, Figures: f}
	if len(f.Pairs) > 0 {
		s.A, s.B, s.Scenario = f.Pairs[0].A.Target, f.Pairs[0].B.Target, f.Pairs[0].A.Scenario
	}
	s.Counters = f.PerfCounters
	return s
}

// Raced is what a race raced and how: the sides, the shape, the design and its limits, why it
// stopped, and the session's warnings. The race kind writes it; gate.Regate writes a re-gated
// copy's thresholds.
type Raced struct {
	SchemaVersion int    `json:"schema_version"`
	Kind          string `json:"kind"` // "race"

	A           string `json:"a"`
	B           string `json:"b"`
	BVersion    string `json:"b_version,omitempty"` // B's pinned version for the headline, e.g. "20.30.0"
	Scenario    string `json:"scenario"`
	Unit        string `json:"unit,omitempty"` // what the rps figures count when not HTTP responses/s: "messages/s"
	Connections int    `json:"connections"`
	Pipelining  int    `json:"pipelining"`
	Shape       Shape  `json:"shape"`
	SideA       Side   `json:"side_a"`
	SideB       Side   `json:"side_b"`
	// UnequalThreads is set when the race ran with unequal threads allowed and the sides differ.
	UnequalThreads bool `json:"unequal_threads,omitempty"`

	Design           *Design   `json:"design,omitempty"`    // null before schema 3: one look after all pairs
	Stop             *Stop     `json:"stop,omitempty"`      // why the pairs stopped
	SetAside         *SetAside `json:"set_aside,omitempty"` // rounds the hypervisor spoiled
	FamilyConfidence float64   `json:"family_confidence"`
	FallibleChecks   int       `json:"fallible_checks"` // statistical checks of the whole profile sharing the budget
	DecideOn         string    `json:"decide_on"`       // "rps" or "rps_per_cpu_second"
	// Pooled: the race's throughput check is a FAIL-only guard, and its set's pooled check
	// (Index.Pooled) decides throughput over all the races (profile "pooled").
	Pooled bool `json:"pooled,omitempty"`
	// Rate is set for an open-loop race: the rate both sides were offered. It fixes the
	// throughput, so the gate judges latency (p50, p99) instead.
	Rate *Rate `json:"rate,omitempty"`

	Database   *DBInfo    `json:"database,omitempty"` // database scenarios: the data set and where it ran
	Thresholds Thresholds `json:"thresholds"`
	Warnings   []string   `json:"warnings,omitempty"`   // client-bound runs, busy machine, ...
	Incomplete string     `json:"incomplete,omitempty"` // why the session stopped early
	Started    time.Time  `json:"started"`
	Finished   time.Time  `json:"finished"`
}

// Figures are the statistics of a race's pairs (stats.Summarize). CILevel is the level every
// interval was computed at: the profile's family confidence shared among the checks that can
// fail (stats.CheckLevel).
type Figures struct {
	CILevel        float64           `json:"ci_level"`
	MedianDeltaPct float64           `json:"median_delta_pct"`
	MinDeltaPct    float64           `json:"min_delta_pct"`
	MaxDeltaPct    float64           `json:"max_delta_pct"`
	CIPct          *[2]float64       `json:"ci_pct"`        // interval of median_delta_pct; null: too few pairs
	CIConfidence   float64           `json:"ci_confidence"` // its real coverage
	Paired         map[string]Paired `json:"paired"`        // rps, rps_per_cpu_second, p95_ms, p99_ms
	Wins           int               `json:"wins"`          // pairs A won on throughput
	OrderEffectPct float64           `json:"order_effect_pct"`
	StatsA         SideStats         `json:"stats_a"`
	StatsB         SideStats         `json:"stats_b"`
	// Runtime is the table of throughput, tails and runtime the reports show, by metric
	// (stats.RuntimeMetrics: rps, p50_ms, ..., artifact_bytes); absent from a sub-race that
	// was not run.
	Runtime map[string]Figure `json:"runtime,omitempty"`
	Pairs   []Pair            `json:"pairs"`
	// MergedA and MergedB are each side's latency over all its requests (histograms merged), for
	// reading beside the medians of runs; absent without histograms (wrk).
	MergedA *Merged `json:"merged_a,omitempty"`
	MergedB *Merged `json:"merged_b,omitempty"`
	// Sampled is each side's ("a", "b") sampled CPU time of its median run by ns per response
	// (races with sample counters).
	Sampled map[string]*Sampled `json:"sampled,omitempty"`
	// PerfCounters are the medians per side of the runs' perf counters (the race kind records
	// them as its Counts when it counted in perf mode), and PairWarnings what the pairs
	// themselves warn of (pairs left out, client-bound runs): the kind keeps them in Raced.
	PerfCounters map[string]map[string]float64 `json:"-"`
	PairWarnings []string                      `json:"-"`
}

// Counts are both sides' counts per response: cachegrind's or perf's, their resolution,
// breakdowns and the paced system calls (the race kind's counts step).
type Counts struct {
	// Counters per response, by side ("a"/"b" -> name -> value) in CountersMode; for
	// cachegrind the median of CounterSamples (one value per repetition).
	Counters       map[string]map[string]float64   `json:"counters"`
	CountersMode   string                          `json:"counters_mode,omitempty"`
	CounterSamples map[string]map[string][]float64 `json:"counter_samples,omitempty"`
	// CounterResolution is, by side and counter, the resolution of its count: how far another
	// measurement of the same build may fall from it (the finest among the repetitions it
	// settled on). The counters checks decide nothing within it.
	CounterResolution   map[string]map[string]float64 `json:"counter_resolution,omitempty"`
	CounterShape        *CounterShape                 `json:"counter_shape,omitempty"`
	CountersUnsupported map[string]string             `json:"counters_unsupported,omitempty"`
	// CountedCPU is the CPU the cachegrind counts came from (both sides': one harness counted
	// them); absent in sessions written before bindrace recorded it.
	CountedCPU *CountedCPU `json:"counted_cpu,omitempty"`
	// Breakdowns are each side's cachegrind instructions per response by function and by file
	// ("a"/"b").
	Breakdowns map[string]*Breakdowns `json:"breakdowns,omitempty"`
	// Syscalls are both sides' paced system calls per response.
	Syscalls *SyscallCounts `json:"syscalls,omitempty"`
}

// Decision is the verdict and what it rests on (gate.Apply; gate.Regate applies it again).
type Decision struct {
	Verdict  string   `json:"verdict"`
	Headline string   `json:"headline"` // the one-line verdict printed at the end of a race
	Reasons  []string `json:"reasons"`  // why the gate decided as it did, one line per check
	Checks   []Check  `json:"checks"`
	// Context holds figures read like checks (delta, interval) that gate nothing: their
	// Verdict is Context and the verdict never counts them.
	Context []Check `json:"context,omitempty"`
	// Resolution is what this race's spread can tell apart on the figure it decides on; null:
	// too few pairs.
	Resolution *Resolution `json:"resolution"`
	// CounterDeltaPct is A's count per response against B's, in percent, for each counter both
	// sides measured (B above 0): what the counters checks and the reports compare; Attribution
	// the ranked deltas of every instruction check.
	CounterDeltaPct map[string]float64 `json:"counter_delta_pct,omitempty"`
	Attribution     []Attribution      `json:"attribution,omitempty"`
}

// CounterShape is how deterministic counts were driven: one connection, N then 2N requests in
// batches of Pipelining, Reps times per side.
type CounterShape struct {
	N           int `json:"n"`
	Reps        int `json:"reps"`
	Connections int `json:"connections"`
	Pipelining  int `json:"pipelining"`
}

// Thresholds are the gate's limits, from the profile or flags.
type Thresholds struct {
	MinMedianDeltaPct float64 `json:"min_median_delta_pct"` // e.g. -2: A may be at most 2% slower
	// MaxP99DeltaPct: open-loop races (a rate), A's p99 at most this % above B's. A closed-loop
	// race no longer gates its p99 (a saturated closed loop's p99 is its queue over its
	// throughput): there the field is only the reference line its context p99 is drawn against,
	// still decoded from old profiles and sessions.
	MaxP99DeltaPct float64 `json:"max_p99_delta_pct"`
	MaxErrors      int64   `json:"max_errors"`
	// MaxP50DeltaPct: open-loop races (a rate), A's p50 at most this % above B's.
	MaxP50DeltaPct float64 `json:"max_p50_delta_pct,omitempty"`
	// Deterministic counts of A against B in the same session: name -> max delta in percent.
	CounterMaxDeltaPct map[string]float64 `json:"counter_max_delta_pct,omitempty"`
	// Deterministic counts of A against a committed baseline: name -> max growth in percent.
	CounterMaxGrowthPct map[string]float64 `json:"counter_max_growth_pct,omitempty"`
	// Deterministic counts of A against B whose normal value is zero (RSS growth), where a
	// percent of B means nothing: name -> how much A's may exceed B's, in the counter's unit.
	CounterMaxExcess map[string]float64 `json:"counter_max_excess,omitempty"`
	// Paced system calls per response: A against B, and A against the baseline, at most this %
	// more; nil: not counted.
	SyscallMaxDeltaPct  *float64 `json:"syscall_max_delta_pct,omitempty"`
	SyscallMaxGrowthPct *float64 `json:"syscall_max_growth_pct,omitempty"`
	// System calls per response under the live load: A's median paired delta at most this %
	// above B's, an interval check with its share of the false-FAIL budget; nil: not gated.
	LiveSyscallMaxDeltaPct *float64 `json:"live_syscall_max_delta_pct,omitempty"`
}

// Matrix is summary.json of a matrix session.
type Matrix struct {
	Kind      string        `json:"kind"` // "matrix"
	Targets   []string      `json:"targets"`
	Scenario  string        `json:"scenario"`
	Unit      string        `json:"unit,omitempty"` // what the rps figures count when not HTTP responses/s: "messages/s"
	Shape     Shape         `json:"shape"`
	Seed      int64         `json:"seed"`
	Orders    [][]string    `json:"orders"` // the shuffled order of each round
	Runs      []Run         `json:"runs"`
	PerTarget []TargetStats `json:"per_target"`
	// Pearson correlation of normalized throughput (run / its target's mean) with slot:
	// near 0 means no position bias; seed 000 saw +0.09 after its fix.
	SlotCorrelation float64 `json:"slot_correlation"`
	// Normalized is every valid run's throughput over its target's mean, by slot, and SlotFit
	// the least-squares line through them (null with fewer than two): the position-bias chart.
	Normalized []SlotPoint `json:"normalized,omitempty"`
	SlotFit    *Fit        `json:"slot_fit,omitempty"`
	Warnings   []string    `json:"warnings,omitempty"`
	Incomplete string      `json:"incomplete,omitempty"`
	Started    time.Time   `json:"started"`
	Finished   time.Time   `json:"finished"`
}

// TargetStats is one target's row in a matrix.
type TargetStats struct {
	Target string `json:"target"`
	Runs   int    `json:"runs"` // valid runs behind the figures
	// VsBestPct is the target's mean throughput against the best target's mean, in percent (0
	// for the best).
	VsBestPct float64 `json:"vs_best_pct"`
	SideStats
}

// SlotPoint is one valid run of a matrix: its slot, its throughput and that over its target's
// mean.
type SlotPoint struct {
	Target     string  `json:"target"`
	Slot       int     `json:"slot"`
	RPS        float64 `json:"rps"`
	Normalized float64 `json:"normalized"`
}

// Fit is the line Intercept + Slope × slot.
type Fit struct {
	Slope     float64 `json:"slope"`
	Intercept float64 `json:"intercept"`
}

// Raw is raw.json: every run in the order it was measured, with its progress samples.
type Raw struct {
	Runs []Run `json:"runs"`
}
