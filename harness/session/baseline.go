package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
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

// LoadBaseline reads and checks a baseline file: unreadable, not a baseline or of an unknown
// schema_version is an error that says which.
func LoadBaseline(path string) (*Baseline, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		SchemaVersion *int   `json:"schema_version"`
		Kind          string `json:"kind"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%s is not a baseline: %v", path, err)
	}
	if head.Kind != BaselineKind {
		return nil, fmt.Errorf("%s is not a baseline (kind %q, want %q; `bindrace baseline write` makes one)", path, head.Kind, BaselineKind)
	}
	if v := head.SchemaVersion; v == nil || *v < oldestBaselineSchema || *v > BaselineSchemaVersion {
		got := "none"
		if v != nil {
			got = fmt.Sprint(*v)
		}
		return nil, fmt.Errorf("%s has schema_version %s; this bindrace reads %d to %d", path, got, oldestBaselineSchema, BaselineSchemaVersion)
	}
	var base Baseline
	if err := json.Unmarshal(b, &base); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if base.Target == "" || len(base.Entries) == 0 {
		return nil, errors.New(path + ": a baseline needs a target and at least one entry")
	}
	return &base, nil
}
