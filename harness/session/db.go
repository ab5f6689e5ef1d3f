package session

// DBRun is what a run of a database scenario records besides the server's figures: the reset
// before it and the resources of the other two parties over the measured window(s).
type DBRun struct {
	ResetMs float64 `json:"reset_ms"` // dropping and cloning the trial database before the run
	// PostgreSQL: every process of the cluster together (cpu in % of one core); zero and
	// External set when the database is someone else's (--db-url).
	PGCPUPct    float64 `json:"pg_cpu_pct"`
	PGRSSMiB    float64 `json:"pg_rss_mib"` // summed VmRSS: shared buffers count once per process
	PGPSSMiB    float64 `json:"pg_pss_mib"` // summed PSS: the real footprint
	PGProcesses int     `json:"pg_processes"`
	External    bool    `json:"external,omitempty"`
	// The load generator (the harness process during the window).
	ClientCPUPct float64 `json:"client_cpu_pct"`
	ClientRSSMiB float64 `json:"client_rss_mib"`
	// Bottleneck is the party at 90% or more of its CPU allotment ("server", "postgres",
	// "load generator", or "client CPUs" when PostgreSQL and the load generator share them
	// and together fill them), else "none".
	Bottleneck string `json:"bottleneck"`
	// PerSecond is each party's CPU (% of one core) and memory read once a second during the
	// measured window(s).
	PerSecond DBSeries `json:"per_second"`
}

// DBSeries are once-a-second samples of the three parties during a run's window(s).
type DBSeries struct {
	ServerCPUPct []float64 `json:"server_cpu_pct"`
	ServerRSSMiB []float64 `json:"server_rss_mib"`
	PGCPUPct     []float64 `json:"pg_cpu_pct,omitempty"`
	PGPSSMiB     []float64 `json:"pg_pss_mib,omitempty"`
	ClientCPUPct []float64 `json:"client_cpu_pct"`
	ClientRSSMiB []float64 `json:"client_rss_mib"`
}

// DBInfo says which database a session's database scenarios ran on.
type DBInfo struct {
	Scale    float64 `json:"scale"`
	Keys     string  `json:"keys"` // uniform, hot or zipf
	Pool     int     `json:"pool"`
	External bool    `json:"external"` // --db-url: resources not sampled
	Version  string  `json:"version,omitempty"`
	SeedS    float64 `json:"seed_s"` // building the template (0: reused)
	Users    int64   `json:"users"`
	Orders   int64   `json:"orders"`
	// PGCPUs is the CPU list PostgreSQL may run on (its affinity), and SharesClient whether
	// that overlaps the load generator's: then the two compete (on 2 cores, always).
	PGCPUs       string   `json:"pg_cpus,omitempty"`
	SharesClient bool     `json:"shares_client_cpus,omitempty"`
	Notes        []string `json:"notes,omitempty"`
}
