package session

import (
	"fmt"
	"time"
)

// BaselineSchemaVersion is the version of a baseline file's layout. 2: each entry keeps the
// candidate's instructions per response by function and by source file (breakdowns), so a
// failing gate names its functions. 3: the CPU the counts came from (cpu). Versions 1 and 2 are
// still read and gated, without what they lack ("CPU unknown").
const BaselineSchemaVersion = 3

// oldestBaselineSchema is the oldest layout this bindrace still reads.
const oldestBaselineSchema = 1

// BaselineKind marks a file as a bindrace baseline.
const BaselineKind = "bindrace-baseline"

// Baseline is a committed record of the candidate's deterministic counts per scenario and shape
// (e.g. baselines/ci.json), so a pull request is held to the last accepted build even when its
// race is against a peer that is never within 1% of it.
type Baseline struct {
	SchemaVersion int               `json:"schema_version"`
	Kind          string            `json:"kind"`
	Target        string            `json:"target"`
	Build         map[string]string `json:"build"` // the candidate's build: kind, profile_sha256, ...
	CountersMode  string            `json:"counters_mode"`
	Written       time.Time         `json:"written"`
	From          string            `json:"from"` // the session it was written from
	// CPU the counts came from: host, what the program saw under valgrind, the switches.
	CPU     *CountedCPU     `json:"cpu,omitempty"`
	Entries []BaselineEntry `json:"entries"`
}

// BaselineEntry is one race's counts: scenario and shape identify it.
type BaselineEntry struct {
	Scenario     string             `json:"scenario"`
	Connections  int                `json:"connections"`
	Pipelining   int                `json:"pipelining"`
	CounterShape *CounterShape      `json:"counter_shape,omitempty"`
	Counters     map[string]float64 `json:"counters"` // per response
	// Resolution is each count's resolution (Summary.CounterResolution of the candidate);
	// absent from files written before it was recorded.
	Resolution map[string]float64 `json:"resolution,omitempty"`
	// Breakdowns: the counts by function and by file (at most MaxBreakdownRows each); absent
	// from a version 1 file.
	Breakdowns *Breakdowns `json:"breakdowns,omitempty"`
	// Syscalls: the candidate's paced system calls per response, with its kernel; absent when
	// the session counted none.
	Syscalls *SyscallBaseline `json:"syscalls,omitempty"`
	// Throughput of that session, for a labelled cross-session note only: never gated.
	RPS             float64 `json:"rps"`
	RPSPerCPUSecond float64 `json:"rps_per_cpu_second"`
}

// LoadBaseline reads a baseline file (DecodeBaseline).
func LoadBaseline(path string) (*Baseline, error) { return loadFile(path, DecodeBaseline) }

// DecodeBaseline decodes and checks a baseline file read from path: not a baseline, of an
// unknown schema_version, or with an entry that could not have been counted is an error that
// says which.
func DecodeBaseline(path string, b []byte) (*Baseline, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := decodeObject(path, b, &head); err != nil {
		return nil, err
	}
	if head.Kind != BaselineKind {
		return nil, fmt.Errorf("%s is not a baseline (kind %q, want %q; `bindrace baseline write` makes one)", path, head.Kind, BaselineKind)
	}
	var base Baseline
	if err := decodeObject(path, b, &base); err != nil {
		return nil, err
	}
	if err := checkSchema(path, base.SchemaVersion, oldestBaselineSchema, BaselineSchemaVersion); err != nil {
		return nil, err
	}
	if base.Target == "" {
		return nil, refuse(path, "target", "missing")
	}
	if len(base.Entries) == 0 {
		return nil, refuse(path, "entries", "empty: a baseline holds at least one race's counts")
	}
	for i, e := range base.Entries {
		if err := checkEntry(path, fmt.Sprintf("entries[%d]", i), e); err != nil {
			return nil, err
		}
	}
	return &base, nil
}

// checkEntry: an entry names the race it was counted in and holds the count the gate compares.
func checkEntry(path, field string, e BaselineEntry) error {
	switch {
	case e.Scenario == "":
		return refuse(path, field+".scenario", "missing")
	case e.Counters["instructions"] <= 0:
		return refuse(path, field+".counters.instructions", "%g: a baseline entry holds the instructions per response it was counted at", e.Counters["instructions"])
	}
	return nil
}
