package load

import (
	"errors"
	"strconv"
)

// Error kinds, as they appear in Result.Errors. Non-2xx responses add "status_NNN".
const (
	KindConnect   = "connect"   // a connection could not be opened (refused, unreachable, connect timeout)
	KindRead      = "read"      // reading failed (e.g. connection reset)
	KindWrite     = "write"     // writing a batch failed
	KindTimeout   = "timeout"   // a batch's responses did not all arrive within Config.Timeout
	KindMalformed = "malformed" // the bytes were not HTTP/1.1 responses (or arrived unrequested)
	KindClosed    = "closed"    // the server closed the connection mid-batch without saying so (WebSocket: while echoes were owed)
)

var (
	// ErrIncomplete marks a Result that does not cover what was asked: the context was
	// cancelled, or in Count mode not every response arrived. The Result still holds what was
	// measured.
	ErrIncomplete = errors.New("load: measurement incomplete")
	// ErrConnect means the target could not be reached at all before the run began.
	ErrConnect = errors.New("load: cannot connect")
)

// kind indexes the per-worker error counters: a fixed array, so counting an error on the hot
// path neither hashes nor allocates; names are attached once, when results are merged.
type kind uint8

const (
	kConnect kind = iota
	kRead
	kWrite
	kTimeout
	kMalformed
	kClosed
	numKinds
)

var kindNames = [numKinds]string{KindConnect, KindRead, KindWrite, KindTimeout, KindMalformed, KindClosed}

// counts holds one worker's measured-window tallies; merged into a Result after the run.
type counts struct {
	bytes      int64
	reconnects int64
	// What the client sees of the server's batching: reads that brought data, event-loop
	// wake-ups, and the batches in flight summed over those wake-ups.
	reads, wakeups, inFlight int64
	errs                     [numKinds]int64
	status                   [600]int64 // non-2xx responses by status code (codes are 100..599)
}

func (c *counts) add(o *counts) {
	c.bytes += o.bytes
	c.reconnects += o.reconnects
	c.reads += o.reads
	c.wakeups += o.wakeups
	c.inFlight += o.inFlight
	for i := range c.errs {
		c.errs[i] += o.errs[i]
	}
	for i := range c.status {
		c.status[i] += o.status[i]
	}
}

// errorMap names the non-zero counters; always non-nil so JSON shows {} rather than null.
func (c *counts) errorMap() map[string]int64 {
	m := NameCounts(kindNames[:], c.errs[:])
	for code, n := range c.status {
		if n > 0 {
			m["status_"+strconv.Itoa(code)] = n
		}
	}
	return m
}

// NameCounts maps names[i] to counts[i] for the non-zero counts; always non-nil, so JSON shows
// {} rather than null. harness/wsload names its error counters with it too.
func NameCounts(names []string, counts []int64) map[string]int64 {
	m := make(map[string]int64)
	for i, n := range counts {
		if n > 0 {
			m[names[i]] = n
		}
	}
	return m
}
