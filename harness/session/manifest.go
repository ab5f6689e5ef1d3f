package session

import (
	"encoding/json"
	"time"
)

// Manifest is manifest.json: the environment and method of a session, so a reader can judge
// and reproduce it.
type Manifest struct {
	Kind     string    `json:"kind"`    // ManifestKind: the harness wrote this session
	Command  []string  `json:"command"` // the full command line
	Started  time.Time `json:"started"`
	Hostname string    `json:"hostname"`

	Kernel    string     `json:"kernel"` // uname: sysname release version machine
	CPUModel  string     `json:"cpu_model"`
	CPUCount  int        `json:"cpu_count"`
	Governor  string     `json:"governor"`   // scaling_governor of every CPU, or "n/a"
	LoadAvg   [3]float64 `json:"load_avg"`   // when the session started: a trailing average of what ran before, for reading only
	Throttle  string     `json:"throttling"` // thermal throttle counters, or "n/a"
	GoVersion string     `json:"go_version"` // the harness's toolchain
	GoEnv     string     `json:"go_toolchain,omitempty"`
	Clang     string     `json:"clang_version"`
	Node      string     `json:"node_version"`

	// Versions of each target raced (upstream package version, Go version, ...).
	Targets map[string]map[string]string `json:"targets,omitempty"`
	// build/<variant>/manifest.json of the native builds, as written by the build.
	Builds map[string]json.RawMessage `json:"builds,omitempty"`
	// The source hash of each part (native, binding, harness, pgo, profiles):
	// harness/internal/machine.SourceHash, the same as scripts/source-hash.sh.
	SourceHashes map[string]string `json:"source_hashes,omitempty"`
	GitCommit    string            `json:"git_commit"`
	GitDirty     bool              `json:"git_dirty"`

	Method   []string `json:"method"` // the method in words, for the report
	Warnings []string `json:"warnings,omitempty"`
}
