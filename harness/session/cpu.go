package session

import "github.com/bindrace/bindrace/harness/internal/cpuid"

// CountedCPU is the CPU a deterministic count came from, as summary.json and a baseline store
// it. Its owner is internal/cpuid, which the counters' instruments fill without importing the
// session's records.
type CountedCPU = cpuid.CountedCPU
