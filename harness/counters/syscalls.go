package counters

import (
	"sort"
	"strings"

	"github.com/bindrace/bindrace/harness/internal/round"
)

// sendCalls and recvCalls are the system calls that move a connection's bytes out and in. A
// write or read on another descriptor (an eventfd that wakes a loop, a pipe) counts too: the
// tracepoints see the call, not the descriptor.
var (
	sendCalls = map[string]bool{"write": true, "writev": true, "sendto": true, "sendmsg": true, "sendmmsg": true, "sendfile64": true}
	recvCalls = map[string]bool{"read": true, "readv": true, "recvfrom": true, "recvmsg": true, "recvmmsg": true}
)

// OtherSyscalls names the calls outside the counted list: the total minus the counted ones.
const OtherSyscalls = "(other)"

// SyscallTable is a window's system calls per response, as the server's threads made them.
type SyscallTable struct {
	Responses   int64        `json:"responses"`
	PerResponse float64      `json:"per_response"` // every system call
	BySyscall   []SyscallRow `json:"by_syscall"`   // most first
	// ContextSwitches per response: the server's threads switched out (voluntarily, to wait, or
	// preempted).
	ContextSwitches  float64 `json:"context_switches_per_response"`
	SendsPerResponse float64 `json:"sends_per_response"`
	RecvsPerResponse float64 `json:"recvs_per_response"`
	// BytesPerSend and BytesPerRecv divide what the client received and sent in the window (the
	// server's sent and received bytes on a client's connections) by the server's send and recv
	// calls: a recv that found nothing (EAGAIN) is a call paid for and counts. Absent when the
	// client's bytes are not known.
	BytesPerSend float64 `json:"bytes_per_send,omitempty"`
	BytesPerRecv float64 `json:"bytes_per_recv,omitempty"`
	// Unsupported says why there are no system-call counts (then every figure above is absent).
	Unsupported string   `json:"unsupported,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}

// SyscallRow is one system call.
type SyscallRow struct {
	Name        string  `json:"name"`
	PerResponse float64 `json:"per_response"`
	SharePct    float64 `json:"share_pct"`
}

// NewSyscallTable turns a system-call probe's totals into per-response figures. clientSent and
// clientReceived are the bytes the client wrote and read in the window (0: unknown).
func NewSyscallTable(t Totals, responses, clientSent, clientReceived int64) *SyscallTable {
	tab := &SyscallTable{Responses: responses, Notes: t.Notes}
	if why, ok := t.Unsupported[Syscalls]; ok {
		tab.Unsupported = why
		return tab
	}
	total, ok := t.Values[Syscalls]
	if !ok || responses <= 0 {
		tab.Unsupported = "no system-call count was read"
		return tab
	}
	per := func(v float64) float64 { return round.Readable(v / float64(responses)) }
	tab.PerResponse = per(total)
	tab.ContextSwitches = per(t.Values[ContextSwitches])
	counted, sends, recvs := 0.0, 0.0, 0.0
	for k, v := range t.Values {
		name, ok := strings.CutPrefix(k, SyscallPrefix)
		if !ok || v == 0 {
			continue
		}
		counted += v
		if sendCalls[name] {
			sends += v
		}
		if recvCalls[name] {
			recvs += v
		}
		tab.BySyscall = append(tab.BySyscall, SyscallRow{Name: name, PerResponse: per(v), SharePct: round.Readable(100 * v / total)})
	}
	if other := total - counted; other > 0 {
		tab.BySyscall = append(tab.BySyscall, SyscallRow{Name: OtherSyscalls, PerResponse: per(other), SharePct: round.Readable(100 * other / total)})
	}
	sort.Slice(tab.BySyscall, func(i, j int) bool {
		a, b := tab.BySyscall[i], tab.BySyscall[j]
		return a.PerResponse > b.PerResponse || a.PerResponse == b.PerResponse && a.Name < b.Name
	})
	tab.SendsPerResponse, tab.RecvsPerResponse = per(sends), per(recvs)
	if sends > 0 && clientReceived > 0 {
		tab.BytesPerSend = round.Readable(float64(clientReceived) / sends)
	}
	if recvs > 0 && clientSent > 0 {
		tab.BytesPerRecv = round.Readable(float64(clientSent) / recvs)
	}
	return tab
}
