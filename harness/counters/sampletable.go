package counters

import (
	"sort"

	"github.com/bindrace/bindrace/harness/internal/round"
)

// SampleFloorPct is the share of the samples under which a row of a sample table is not listed
// one by one (they are summed in the table's Rest): a row of a few samples is mostly sampling
// noise (its count is Poisson: ± its square root).
const SampleFloorPct = 0.1

// SampleTable is a sampler's profile per response: where the server's CPU time went, kernel
// included, in nanoseconds per response (samples × period / responses).
type SampleTable struct {
	Responses     int64       `json:"responses"`
	Samples       int64       `json:"samples"`
	Threads       int         `json:"threads"`
	PeriodNs      int64       `json:"period_ns"`
	WindowS       float64     `json:"window_s"`
	NsPerResponse float64     `json:"ns_per_response"` // all the CPU time sampled
	UserNs        float64     `json:"user_ns_per_response"`
	KernelNs      float64     `json:"kernel_ns_per_response"`
	KernelPct     float64     `json:"kernel_pct"`
	Functions     []SampleRow `json:"functions"` // self time, most first
	Syscalls      []SampleRow `json:"syscalls"`  // kernel time inside each system call
	Activities    []SampleRow `json:"activities"`
	Rest          SampleRow   `json:"functions_under_floor"` // functions under SampleFloorPct, together
}

// SampleRow is one function, system call or activity.
type SampleRow struct {
	Name          string  `json:"name"`
	Kernel        bool    `json:"kernel,omitempty"`
	Rows          int     `json:"rows,omitempty"` // Rest only: how many
	NsPerResponse float64 `json:"ns_per_response"`
	SharePct      float64 `json:"share_pct"` // of all the samples
}

// Table divides the profile by the responses served while it was sampled.
func (p *SampleProfile) Table(responses int64) *SampleTable {
	t := &SampleTable{Responses: responses, Samples: p.Samples, Threads: p.Threads, PeriodNs: p.Period.Nanoseconds(),
		WindowS: round.Readable(p.Window.Seconds())}
	if responses <= 0 || p.CPUNs <= 0 {
		return t
	}
	per := func(ns float64) float64 { return round.Readable(ns / float64(responses)) }
	share := func(ns float64) float64 { return round.Readable(100 * ns / p.CPUNs) }
	t.NsPerResponse, t.UserNs, t.KernelNs, t.KernelPct = per(p.CPUNs), per(p.UserNs), per(p.KernelNs), share(p.KernelNs)
	t.Rest.Name = "functions under the floor"
	for name, f := range p.Functions {
		if 100*f.Ns/p.CPUNs < SampleFloorPct {
			t.Rest.Rows++
			t.Rest.NsPerResponse += f.Ns
			continue
		}
		t.Functions = append(t.Functions, SampleRow{Name: name, Kernel: f.Kernel, NsPerResponse: per(f.Ns), SharePct: share(f.Ns)})
	}
	t.Rest.SharePct, t.Rest.NsPerResponse = share(t.Rest.NsPerResponse), per(t.Rest.NsPerResponse)
	for name, ns := range p.Syscalls {
		t.Syscalls = append(t.Syscalls, SampleRow{Name: name, Kernel: true, NsPerResponse: per(ns), SharePct: share(ns)})
	}
	for name, ns := range p.Activities {
		t.Activities = append(t.Activities, SampleRow{Name: name, NsPerResponse: per(ns), SharePct: share(ns)})
	}
	for _, rows := range [][]SampleRow{t.Functions, t.Syscalls, t.Activities} {
		sortSampleRows(rows)
	}
	return t
}

func sortSampleRows(rows []SampleRow) {
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].NsPerResponse > rows[j].NsPerResponse || rows[i].NsPerResponse == rows[j].NsPerResponse && rows[i].Name < rows[j].Name
	})
}
