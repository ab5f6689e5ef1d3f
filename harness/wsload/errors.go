package wsload

import "errors"

// Error kinds, as they appear in Result.Errors.
const (
	KindConnect   = "connect"   // a TCP connection could not be opened
	KindHandshake = "handshake" // the upgrade was refused or answered wrongly (status, Accept, extensions)
	KindRead      = "read"      // reading failed (e.g. connection reset)
	KindWrite     = "write"     // writing failed
	KindTimeout   = "timeout"   // a batch's echoes or the upgrade's answer did not arrive within Config.Timeout
	KindProtocol  = "protocol"  // the server's bytes broke RFC 6455 (masked frame, bad opcode, unrequested message, …)
	KindMismatch  = "mismatch"  // an echo differed from the message sent (payload, length or opcode)
	KindClose     = "close"     // the server closed the connection (close frame or TCP close) while echoes were owed or mid-run
)

var (
	// ErrIncomplete marks a Result that does not cover what was asked: the context was
	// cancelled, or in Count mode not every message was echoed. The Result still holds what
	// was measured.
	ErrIncomplete = errors.New("wsload: measurement incomplete")
	// ErrConnect means the target could not be reached at all before the run began.
	ErrConnect = errors.New("wsload: cannot connect")
	// ErrHandshake means the target answered the probe's upgrade wrongly before the run began.
	ErrHandshake = errors.New("wsload: handshake failed")
)

// kind indexes the per-worker error counters: a fixed array, so counting an error on the hot
// path neither hashes nor allocates; names are attached when results are merged.
type kind uint8

const (
	kConnect kind = iota
	kHandshake
	kRead
	kWrite
	kTimeout
	kProtocol
	kMismatch
	kClose
	numKinds
)

var kindNames = [numKinds]string{KindConnect, KindHandshake, KindRead, KindWrite, KindTimeout, KindProtocol, KindMismatch, KindClose}

// counts holds one worker's measured-window tallies.
type counts struct {
	messages int64
	bytes    int64
	errs     [numKinds]int64
}

func (c *counts) add(o *counts) {
	c.messages += o.messages
	c.bytes += o.bytes
	for i := range c.errs {
		c.errs[i] += o.errs[i]
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
	return m
}
