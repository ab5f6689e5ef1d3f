// Package session is what a race or matrix leaves on disk: every measured run (raw.json), the
// statistics and verdict (summary.json) and the environment (manifest.json). Reports and the
// gate are re-rendered from these files alone, so they hold everything a reader needs.
package session

import "time"

// Verdicts and the exit codes the CLI maps them to.
const (
	Pass         = "PASS"         // exit 0
	Fail         = "FAIL"         // exit 1
	Inconclusive = "INCONCLUSIVE" // exit 3
	Incomplete   = "INCOMPLETE"   // the session was cut short (error, crash, Ctrl-C); exit 2
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
	RSSMiB          float64 `json:"rss_mib"`            // after warm-up
	PeakRSSMiB      float64 `json:"peak_rss_mib"`
	HeapMiB         float64 `json:"heap_mib,omitempty"` // Go or V8 heap, when the target reports it
	StartupMs       float64 `json:"startup_ms"`         // spawn to first valid response
	ArtifactBytes   int64   `json:"artifact_bytes"`

	// Counters per response for this run (perf mode), by name; unsupported ones are absent here
	// and listed with their reason in Summary.CountersUnsupported.
	Counters map[string]float64 `json:"counters,omitempty"`
	Error    string             `json:"error,omitempty"` // what went wrong, if the run did not finish
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
	Pairs       int      `json:"pairs,omitempty"`
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

// Summary is summary.json of a race: the verdict and the figures it rests on.
type Summary struct {
	Kind     string   `json:"kind"` // "race"
	Verdict  string   `json:"verdict"`
	Headline string   `json:"headline"` // the one-line verdict printed at the end of a race
	Reasons  []string `json:"reasons"`  // why the gate decided as it did, one line per threshold

	A           string `json:"a"`
	B           string `json:"b"`
	BVersion    string `json:"b_version,omitempty"` // B's pinned version for the headline, e.g. "20.30.0"
	Scenario    string `json:"scenario"`
	Unit        string `json:"unit,omitempty"` // what the rps figures count when not HTTP responses/s: "messages/s"
	Connections int    `json:"connections"`
	Pipelining  int    `json:"pipelining"`
	Shape       Shape  `json:"shape"`

	MedianDeltaPct float64    `json:"median_delta_pct"`
	MinDeltaPct    float64    `json:"min_delta_pct"`
	MaxDeltaPct    float64    `json:"max_delta_pct"`
	CI95Pct        [2]float64 `json:"ci95_pct"`         // bootstrap 95% CI of the median delta
	Wins           int        `json:"wins"`             // pairs A won on throughput
	OrderEffectPct float64    `json:"order_effect_pct"` // mean delta of AB pairs minus BA pairs
	P95DeltaPct    float64    `json:"p95_delta_pct"`
	P99DeltaPct    float64    `json:"p99_delta_pct"`
	StatsA         SideStats  `json:"stats_a"`
	StatsB         SideStats  `json:"stats_b"`
	Pairs          []Pair     `json:"pairs"`

	// Counters per response, by side; unsupported counters with the reason.
	Counters            map[string]map[string]float64 `json:"counters"` // "a"/"b" -> name -> value
	CountersMode        string                        `json:"counters_mode,omitempty"`
	CountersUnsupported map[string]string             `json:"counters_unsupported,omitempty"`

	Thresholds Thresholds `json:"thresholds"`
	Warnings   []string   `json:"warnings,omitempty"`   // client-bound runs, busy machine, ...
	Incomplete string     `json:"incomplete,omitempty"` // why the session stopped early
	Started    time.Time  `json:"started"`
	Finished   time.Time  `json:"finished"`
}

// Thresholds are the gate's limits, from the profile or flags.
type Thresholds struct {
	MinMedianDeltaPct float64 `json:"min_median_delta_pct"` // e.g. -2: A may be at most 2% slower
	MaxP99DeltaPct    float64 `json:"max_p99_delta_pct"`    // e.g. 10: A's p99 at most 10% higher
	MaxErrors         int64   `json:"max_errors"`
	// Counter limits against a baseline session: name -> max growth in percent.
	CounterMaxGrowthPct map[string]float64 `json:"counter_max_growth_pct,omitempty"`
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
	SlotCorrelation float64   `json:"slot_correlation"`
	Warnings        []string  `json:"warnings,omitempty"`
	Incomplete      string    `json:"incomplete,omitempty"`
	Started         time.Time `json:"started"`
	Finished        time.Time `json:"finished"`
}

// TargetStats is one target's row in a matrix.
type TargetStats struct {
	Target string `json:"target"`
	SideStats
}

// Raw is raw.json: every run in the order it was measured, with its progress samples.
type Raw struct {
	Runs []Run `json:"runs"`
}
