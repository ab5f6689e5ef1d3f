package session

// OpenLoop is what an open-loop run (one at a fixed rate) says about itself: the rate asked and
// achieved, and whether its load generator kept to the schedule.
type OpenLoop struct {
	Rate    float64 `json:"rate"`     // asked, requests per second in all
	SentRPS float64 `json:"sent_rps"` // achieved: requests sent per second of the window
	// LagP99Ms is the p99 of the generator's send lag (actual minus intended send time, for
	// requests whose connection was free); the worst window's when there were several.
	LagP99Ms        float64 `json:"lag_p99_ms"`
	GeneratorCPUPct float64 `json:"generator_cpu_pct"` // % of one core, the worst window's
	// GeneratorBound: the lag p99 exceeded the tolerance, so the run measured the generator as
	// much as the server; no verdict rests on it.
	GeneratorBound bool `json:"generator_bound"`
}

// Rate is how an open-loop race chose the rate it offered both sides.
type Rate struct {
	RPS float64 `json:"rps"` // offered to both sides, requests per second in all
	// Fraction is the profile's rate_fraction (0 when the rate was absolute); the rate is then
	// Fraction × the lower of the two sides' closed-loop maxima, measured in the session at the
	// same pipelining.
	Fraction float64 `json:"fraction,omitempty"`
	MaxA     float64 `json:"max_a_rps,omitempty"`
	MaxB     float64 `json:"max_b_rps,omitempty"`
}

// Merged is a side's latency over every request of its valid runs together: their histograms
// (Run.Hist) merged. For reading: the gate uses the per-run values, pair by pair.
type Merged struct {
	Runs     int     `json:"runs"`
	Requests int64   `json:"requests"`
	P50Ms    float64 `json:"p50_ms"`
	P90Ms    float64 `json:"p90_ms"`
	P99Ms    float64 `json:"p99_ms"`
	P999Ms   float64 `json:"p999_ms"`
	MaxMs    float64 `json:"max_ms"`
}
