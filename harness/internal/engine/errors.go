package engine

import (
	"errors"
	"strconv"
)

// Error kinds, as they appear in Result.Errors. Non-2xx HTTP responses add "status_NNN".
const (
	kindConnect   = "connect"   // a connection could not be opened (refused, unreachable, connect timeout)
	kindHandshake = "handshake" // WebSocket: the upgrade was refused or answered wrongly (status, Accept, extensions)
	kindRead      = "read"      // reading failed (e.g. connection reset)
	kindWrite     = "write"     // writing failed
	kindTimeout   = "timeout"   // requests in flight (or the upgrade) got no answer within Config.Timeout
	kindMalformed = "malformed" // HTTP: the bytes were not HTTP/1.1 responses (or arrived unrequested)
	kindProtocol  = "protocol"  // WebSocket: the server's bytes broke RFC 6455 (masked frame, bad opcode, unrequested message, …)
	kindMismatch  = "mismatch"  // WebSocket: an echo differed from the message sent (payload, length or opcode)
	kindClosed    = "closed"    // the server closed the connection while answers were owed, without saying so (WebSocket: or mid-run)
)

var (
	// ErrIncomplete marks a Result that does not cover what was asked: the context was
	// cancelled, or in Count mode not every request was answered. The Result still holds what
	// was measured.
	ErrIncomplete = errors.New("load: measurement incomplete")
	// errConnect means the target could not be reached at all before the run began.
	errConnect = errors.New("load: cannot connect")
	// errHandshake means the target answered the probe's WebSocket upgrade wrongly before the
	// run began.
	errHandshake = errors.New("load: handshake failed")
)

// kind indexes the per-worker error counters: a fixed array, so counting an error on the hot
// path neither hashes nor allocates; names are attached once, when results are merged.
type kind uint8

const (
	kConnect kind = iota
	kHandshake
	kRead
	kWrite
	kTimeout
	kMalformed
	kProtocol
	kMismatch
	kClosed
	numKinds
)

var kindNames = [numKinds]string{kindConnect, kindHandshake, kindRead, kindWrite, kindTimeout, kindMalformed,
	kindProtocol, kindMismatch, kindClosed}

// counts holds one worker's measured-window tallies; merged into a Result after the run.
type counts struct {
	bytes      int64
	reconnects int64
	// What the client sees of the server's batching: reads that brought data, event-loop
	// wake-ups, and the connections with requests in flight summed over those wake-ups.
	reads, wakeups, inFlight int64
	sent                     int64 // open loop: requests sent
	errs                     [numKinds]int64
	status                   [600]int64 // non-2xx HTTP responses by status code (codes are 100..599)
}

func (c *counts) add(o *counts) {
	c.bytes += o.bytes
	c.reconnects += o.reconnects
	c.reads += o.reads
	c.wakeups += o.wakeups
	c.inFlight += o.inFlight
	c.sent += o.sent
	for i := range c.errs {
		c.errs[i] += o.errs[i]
	}
	for i := range c.status {
		c.status[i] += o.status[i]
	}
}

// errorMap names the non-zero counters; always non-nil so JSON shows {} rather than null.
func (c *counts) errorMap() map[string]int64 {
	m := make(map[string]int64)
	for i, n := range c.errs {
		if n > 0 {
			m[kindNames[i]] = n
		}
	}
	for code, n := range c.status {
		if n > 0 {
			m["status_"+strconv.Itoa(code)] = n
		}
	}
	return m
}
