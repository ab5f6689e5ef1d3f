package engine

import (
	"sync/atomic"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// tally is the bookkeeping every worker keeps on its own goroutine: the answers seen in any
// phase, for progress; those in the measured window and their latencies; and in Count mode,
// how much is still to send and what became of what was sent. Only progress is read from
// another goroutine.
type tally struct {
	hist         *hdrhistogram.Histogram // latencies in the window, µs
	measured     int64                   // answers in the window
	all          int64                   // answers in any phase
	lastProgress int64                   // nanotime of the last answer (or of a connection opening)
	countMode    bool
	budget       int64 // Count mode: still to send
	owed         int64 // Count mode: to send or in flight, fate not settled yet
	lost         int64 // Count mode: sent and never answered
	// Latencies are booked in runs of equal values: the answers of one read to one batch share
	// their latency, so the histogram is touched about once per read, not once per answer.
	runLat, runN int64

	_        [64]byte // keep the progress word off the cache lines the loop writes
	progress atomic.Int64
	_        [56]byte
}

// newTally starts a worker's tally; in Count mode, share is its part of Count.
func newTally(countMode bool, share int64) tally {
	return tally{hist: NewHistogram(), countMode: countMode, budget: share, owed: share}
}

// answer books one answer that completed at t to a request sent at start; in says t is in
// the measured window.
func (t *tally) answer(at, start int64, in bool) {
	t.all++
	t.lastProgress = at
	if t.countMode {
		t.owed--
	}
	if in {
		t.measured++
		if lat := at - start; lat == t.runLat {
			t.runN++
		} else {
			t.flush()
			t.runLat, t.runN = lat, 1
		}
	}
}

// flush books the pending run of equal latencies.
func (t *tally) flush() {
	if t.runN > 0 {
		recordLatency(t.hist, t.runLat, t.runN)
		t.runN = 0
	}
}

// take is how many of the n a full batch holds to send now: n, or in Count mode no more than
// the budget (0: nothing left), which it then draws on.
func (t *tally) take(n int) int {
	if t.countMode {
		n = int(min(int64(n), t.budget))
		t.budget -= int64(n)
	}
	return n
}

// lose settles n sent and never answered (Count mode; no-op otherwise).
func (t *tally) lose(n int64) {
	if t.countMode {
		t.owed -= n
		t.lost += n
	}
}

// giveUp gives what is still to send up as lost: the server is gone.
func (t *tally) giveUp() {
	t.owed -= t.budget
	t.lost += t.budget
	t.budget = 0
}

// settled reports that in Count mode everything is answered or lost: the worker may return.
func (t *tally) settled() bool { return t.countMode && t.owed <= 0 }

// publish makes all visible to answered, and books the pending latencies.
func (t *tally) publish() {
	t.flush()
	t.progress.Store(t.all)
}

// answered is the answers published so far, in any phase; read from another goroutine.
func (t *tally) answered() int64 { return t.progress.Load() }
