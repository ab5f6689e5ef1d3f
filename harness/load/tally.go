package load

import (
	"sync/atomic"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Tally is the bookkeeping every worker of both generators keeps on its own goroutine: the
// answers (responses, or echoed messages) seen in any phase, for progress; those in the
// measured window and their latencies; and in Count mode, how much is still to send and what
// became of what was sent. Workers embed it; only Progress is read from another goroutine.
type Tally struct {
	Hist         *hdrhistogram.Histogram // latencies in the window, µs
	Measured     int64                   // answers in the window
	All          int64                   // answers in any phase
	LastProgress int64                   // Nanotime of the last answer (or of a connection opening)
	CountMode    bool
	Budget       int64 // Count mode: still to send
	Owed         int64 // Count mode: to send or in flight, fate not settled yet
	Lost         int64 // Count mode: sent and never answered

	_        [64]byte // keep the progress word off the cache lines the loop writes
	progress atomic.Int64
	_        [56]byte
}

// NewTally starts a worker's tally; in Count mode, share is its part of Count.
func NewTally(countMode bool, share int64) Tally {
	return Tally{Hist: NewHistogram(), CountMode: countMode, Budget: share, Owed: share}
}

// Record books done answers of one batch that completed at t, all sharing the latency since
// batchStart; in says t is in the measured window.
func (t *Tally) Record(done, batchStart, at int64, in bool) {
	if done == 0 {
		return
	}
	t.All += done
	t.LastProgress = at
	if t.CountMode {
		t.Owed -= done
	}
	if in {
		t.Measured += done
		RecordLatency(t.Hist, at-batchStart, done)
	}
}

// Take is how many of the n a full batch holds to send now: n, or in Count mode no more than
// the budget (0: nothing left), which it then draws on.
func (t *Tally) Take(n int) int {
	if t.CountMode {
		n = int(min(int64(n), t.Budget))
		t.Budget -= int64(n)
	}
	return n
}

// Lose settles n sent and never answered (Count mode; no-op otherwise).
func (t *Tally) Lose(n int64) {
	if t.CountMode {
		t.Owed -= n
		t.Lost += n
	}
}

// GiveUp gives what is still to send up as lost: the server is gone.
func (t *Tally) GiveUp() {
	t.Owed -= t.Budget
	t.Lost += t.Budget
	t.Budget = 0
}

// Settled reports that in Count mode everything is answered or lost: the worker may return.
func (t *Tally) Settled() bool { return t.CountMode && t.Owed <= 0 }

// Publish makes All visible to Progress.
func (t *Tally) Publish() { t.progress.Store(t.All) }

// Progress is the answers published so far, in any phase (see Worker).
func (t *Tally) Progress() int64 { return t.progress.Load() }

// Tallied is a worker that keeps a Tally (by embedding it).
type Tallied interface{ Tallied() *Tally }

// Tallied returns t: workers embedding a Tally satisfy Tallied.
func (t *Tally) Tallied() *Tally { return t }

// Totals merges the tallies of a run's workers once they have returned: the answers measured
// in the window and their latencies, as a Result that win finishes (Elapsed, RPS), to which
// the caller adds its own counters; and lost, what Count mode gave up as sent and never answered.
func Totals[W Tallied](win *Window, workers []W) (res *Result, lost int64) {
	hist := NewHistogram()
	var measured int64
	for _, w := range workers {
		t := w.Tallied()
		measured += t.Measured
		lost += t.Lost
		hist.Merge(t.Hist)
	}
	res = &Result{Responses: measured, Hist: hist, Latency: Summarize(hist)}
	win.Finish(res)
	return res, lost
}
