package session

// Sampled is where a run's server spent its CPU time, kernel included: perf record -e cpu-clock
// -g on its threads during its windows (a race's sample counters), divided by the responses
// those windows served.
type Sampled struct {
	Samples       int64        `json:"samples"`
	PeriodNs      int64        `json:"period_ns"`
	NsPerResponse float64      `json:"ns_per_response"` // all the CPU time sampled
	UserNs        float64      `json:"user_ns_per_response"`
	KernelNs      float64      `json:"kernel_ns_per_response"`
	KernelPct     float64      `json:"kernel_pct"`
	Functions     []SampledRow `json:"functions"` // the most self time first (the top few)
	Syscalls      []SampledRow `json:"syscalls"`  // the kernel's time inside each system call
	// Activities are the samples by what the stack was doing (the first frame that names an
	// activity: stack growth, sysmon, GC, the database query, hand-off, send, receive...).
	Activities []SampledRow `json:"activities"`
}

// SampledRow is one function or system call of a Sampled.
type SampledRow struct {
	Name          string  `json:"name"`
	Kernel        bool    `json:"kernel,omitempty"`
	NsPerResponse float64 `json:"ns_per_response"`
	SharePct      float64 `json:"share_pct"` // of all the samples
}
