package session

// SyscallCounts are a race's system calls per response under the paced client (one connection,
// batches of Pipelining requests with a gap between them, as cachegrind's client drives): every
// batch meets an idle server, so the counts are fixed by the protocol, not by how client and
// server interleaved, and are gated like instructions. Counted by tracepoints (no PMU).
type SyscallCounts struct {
	Kernel     string `json:"kernel"` // the release of the kernel that made the calls (uname -r)
	N          int    `json:"n"`      // requests in each counted window
	Pipelining int    `json:"pipelining"`
	Reps       int    `json:"reps"` // fresh servers per side
	// PerResponse is each side's median over its repetitions ("a"/"b" → "syscalls", "syscall:<name>",
	// "context-switches"); Samples every repetition's syscalls per response.
	PerResponse map[string]map[string]float64 `json:"per_response"`
	Samples     map[string][]float64          `json:"samples"`
	Unsupported string                        `json:"unsupported,omitempty"` // why there are none
}

// SyscallBaseline is a baseline entry's paced system calls of the candidate, and the kernel that
// made them: another kernel's calls are not comparable, and are refused.
type SyscallBaseline struct {
	Kernel      string             `json:"kernel"`
	N           int                `json:"n"`
	Pipelining  int                `json:"pipelining"`
	Paced       bool               `json:"paced"` // always true: only paced counts are held to a baseline
	PerResponse map[string]float64 `json:"per_response"`
}
