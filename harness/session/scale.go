package session

import "time"

// Scale is summary.json of a scale session: each target at each server thread count, runs in
// alternating target order, and per point the figures of its runs (kind "scale").
type Scale struct {
	Kind     string   `json:"kind"` // "scale"
	Targets  []string `json:"targets"`
	Threads  []int    `json:"threads"` // the thread counts asked, ascending
	Scenario string   `json:"scenario"`
	Unit     string   `json:"unit,omitempty"` // "messages/s" for WebSocket scenarios
	Shape    Shape    `json:"shape"`
	Rounds   int      `json:"rounds"` // runs per target and point; the order alternates per round
	// BaseThreads is the thread count efficiencies are measured against: 1 when it was run,
	// else the smallest one.
	BaseThreads int          `json:"base_threads"`
	Points      []ScalePoint `json:"points"` // per thread count, per target (the targets' order)
	Runs        []ScaleRun   `json:"runs"`   // every run in measured order, none left out
	Warnings    []string     `json:"warnings,omitempty"`
	Incomplete  string       `json:"incomplete,omitempty"`
	Started     time.Time    `json:"started"`
	Finished    time.Time    `json:"finished"`
}

// ScaleRun is one run of a scale session: a Run plus where it ran and what the load generator
// spent.
type ScaleRun struct {
	Run
	ServerThreads int    `json:"server_threads"` // threads asked of the server
	Round         int    `json:"round"`          // from 0
	CPUsServer    string `json:"cpus_server"`
	CPUsClient    string `json:"cpus_client"`
	// SharedCPUs: the server's CPUs overlap the load generator's, so the two took time from
	// each other.
	SharedCPUs bool `json:"shared_cpus"`
	// ClientCPUPct is the load generator's own CPU during the window, % of one core (the whole
	// harness process, which does little else then); 0 with an error before the window.
	ClientCPUPct float64 `json:"client_cpu_pct"`
	ClientCores  int     `json:"client_cores"` // the generator's workers (cores it could use)
}

// ScalePoint is one target at one thread count: the medians of its valid runs.
type ScalePoint struct {
	Target          string  `json:"target"`
	Threads         int     `json:"threads"`
	Runs            int     `json:"runs"` // valid runs behind the figures
	RPS             float64 `json:"rps"`
	RPSPerCPUSecond float64 `json:"rps_per_cpu_second"`
	ServerCPUPct    float64 `json:"server_cpu_pct"`
	ClientCPUPct    float64 `json:"client_cpu_pct"`
	P99Ms           float64 `json:"p99_ms"`
	// SpeedUp is RPS over the base point's; EfficiencyPct is SpeedUp per thread added,
	// (RPS/threads)/(base RPS/base threads) in percent: 100 is linear scaling. Both 0 without
	// a valid base point.
	SpeedUp       float64 `json:"speed_up"`
	EfficiencyPct float64 `json:"efficiency_pct"`
	// ClientBound: the load generator used at least 90% of its cores, so it may have limited
	// the point. ServerUnsaturated: the server used under 90% of its threads' cores.
	ClientBound       bool   `json:"client_bound"`
	ServerUnsaturated bool   `json:"server_unsaturated"`
	SharedCPUs        bool   `json:"shared_cpus"`
	CPUsServer        string `json:"cpus_server"`
	Errors            int64  `json:"errors"`
}
