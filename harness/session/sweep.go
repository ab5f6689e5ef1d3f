package session

import "time"

// Sweep is summary.json of a sweep session: each target at a series of fixed rates (open
// loops), its latency at each, and the highest rate whose p99 stays under the SLO.
type Sweep struct {
	Kind     string   `json:"kind"` // "sweep"
	Targets  []string `json:"targets"`
	Scenario string   `json:"scenario"`
	Unit     string   `json:"unit,omitempty"`
	Shape    Shape    `json:"shape"`
	// Rates (absolute, requests/s) or Fractions (of each target's own closed-loop maximum,
	// ClosedLoopMax, measured in the session at the same pipelining): the points, in order.
	Rates         []float64          `json:"rates,omitempty"`
	Fractions     []float64          `json:"fractions,omitempty"`
	ClosedLoopMax map[string]float64 `json:"closed_loop_max_rps,omitempty"`
	SLOMs         float64            `json:"slo_ms,omitempty"` // 0: no SLO asked
	// Points are every measured run, point by point (the targets alternating their order from
	// one point to the next); Run carries the latency and the open-loop record (no histogram:
	// that stays in raw.json).
	Points     []SweepPoint  `json:"points"`
	PerTarget  []SweepTarget `json:"per_target"` // stats.SummarizeSweep
	Warnings   []string      `json:"warnings,omitempty"`
	Incomplete string        `json:"incomplete,omitempty"`
	Started    time.Time     `json:"started"`
	Finished   time.Time     `json:"finished"`
}

// SweepPoint is one target measured at one rate.
type SweepPoint struct {
	Point    int     `json:"point"` // index into Rates or Fractions
	Target   string  `json:"target"`
	Fraction float64 `json:"fraction,omitempty"`
	Rate     float64 `json:"rate"` // asked, requests/s in all
	Run      Run     `json:"run"`
}

// SweepTarget is one target's reading of the sweep.
type SweepTarget struct {
	Target string `json:"target"`
	// SLORate is the highest asked rate up to which p99 stayed at or under the SLO: walking the
	// rates upwards over the finished runs that were not generator-bound, the last before the
	// first crossing; null when the lowest crossed it ("none"), or when no SLO was asked.
	SLORate *float64 `json:"slo_rate"`
	// Points counts the target's points that finished; GeneratorBound those of them whose
	// generator fell behind (they are drawn, marked, and cannot set SLORate).
	Points         int `json:"points"`
	GeneratorBound int `json:"generator_bound"`
}
