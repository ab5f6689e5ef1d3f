package wsload

import (
	"errors"

	"github.com/bindrace/bindrace/harness/load"
)

// Error kinds, as they appear in Result.Errors: harness/load's where the failure is the same,
// and the WebSocket ones.
const (
	KindConnect   = load.KindConnect // a TCP connection could not be opened
	KindHandshake = "handshake"      // the upgrade was refused or answered wrongly (status, Accept, extensions)
	KindRead      = load.KindRead    // reading failed (e.g. connection reset)
	KindWrite     = load.KindWrite   // writing failed
	KindTimeout   = load.KindTimeout // a batch's echoes or the upgrade's answer did not arrive within Config.Timeout
	KindProtocol  = "protocol"       // the server's bytes broke RFC 6455 (masked frame, bad opcode, unrequested message, …)
	KindMismatch  = "mismatch"       // an echo differed from the message sent (payload, length or opcode)
	KindClosed    = load.KindClosed  // the server closed the connection (close frame or TCP close) while echoes were owed or mid-run
)

var (
	// ErrIncomplete marks a Result that does not cover what was asked: the context was
	// cancelled, or in Count mode not every message was echoed. The Result still holds what
	// was measured. It is harness/load's.
	ErrIncomplete = load.ErrIncomplete
	// ErrConnect means the target could not be reached at all before the run began.
	ErrConnect = load.ErrConnect
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
	kClosed
	numKinds
)

var kindNames = [numKinds]string{KindConnect, KindHandshake, KindRead, KindWrite, KindTimeout, KindProtocol, KindMismatch, KindClosed}

// counts holds one worker's measured-window tallies.
type counts struct {
	bytes      int64
	reconnects int64
	errs       [numKinds]int64
}

func (c *counts) add(o *counts) {
	c.bytes += o.bytes
	c.reconnects += o.reconnects
	for i := range c.errs {
		c.errs[i] += o.errs[i]
	}
}

// errorMap names the non-zero counters; always non-nil so JSON shows {} rather than null.
func (c *counts) errorMap() map[string]int64 {
	return load.NameCounts(kindNames[:], c.errs[:])
}
