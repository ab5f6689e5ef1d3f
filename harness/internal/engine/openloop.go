package engine

import (
	"math"
	"math/rand/v2"
	"time"
	"unsafe"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// The open loop (Config.Rate > 0), as wrk2 does it: every connection keeps its own schedule
// of intended send times, at Rate/Connections, staggered so that together they make Rate (a
// uniform schedule) or a Poisson process. A connection sends each request when it falls due if
// it has room (fewer than Pipelining in flight); otherwise the request waits in the generator
// and leaves as soon as an answer makes room. Either way its latency counts from its intended
// time, so a server that stalls shows its stall in the latency of every request that fell due
// during it, rather than in the few that happened to be in flight.

// startSchedule gives each of w's connections its first intended send time. first is the
// index of w's first connection among all of the run's connections.
func (w *worker) startSchedule(first int) {
	r := w.r
	for i := range w.conns {
		c := &w.conns[i]
		switch r.cfg.Arrival {
		case Poisson:
			c.next = float64(r.schedule) + r.gap*rand.ExpFloat64()
		default: // staggered evenly, so all connections together are evenly spaced
			c.next = float64(r.schedule) + r.gap*float64(first+i)/float64(r.cfg.Connections)
		}
	}
}

// gapAfter is the time from one of a connection's intended send times to its next.
func (w *worker) gapAfter() float64 {
	if w.r.cfg.Arrival == Poisson {
		return w.r.gap * rand.ExpFloat64()
	}
	return w.r.gap
}

// dispatch sends what is due on every connection with room, and notes when the next request
// of a connection with room falls due (the loop does not sleep past it).
func (w *worker) dispatch() {
	next := int64(math.MaxInt64)
	p := int32(w.r.cfg.Pipelining)
	for i := range w.conns {
		c := &w.conns[i]
		if c.state != csOpen || c.pending >= p {
			continue
		}
		w.sendDue(c)
		if c.state == csOpen && c.pending < p {
			next = min(next, int64(c.next))
		}
	}
	w.nextDue = next
}

// refillOpen is the open loop's answer to room on c: send what is due, and wake for the rest.
func (w *worker) refillOpen(c *conn) {
	w.sendDue(c)
	if c.state == csOpen && c.pending < int32(w.r.cfg.Pipelining) {
		w.nextDue = min(w.nextDue, int64(c.next))
	}
}

// notDue reports that none of w's connections has a request due at now.
func (w *worker) notDue(now int64) bool {
	for i := range w.conns {
		if int64(w.conns[i].next) <= now {
			return false
		}
	}
	return true
}

// sendDue writes, in one batch, c's requests that are due now, as many as c has room for.
// A request whose connection was free at its intended time and still leaves late is the
// generator's lag.
func (w *worker) sendDue(c *conn) {
	now := nanotime()
	p := int32(w.r.cfg.Pipelining)
	tail := (c.head + c.pending) % p
	n := int32(0)
	in := w.r.win.in(now)
	for c.pending+n < p && int64(c.next) <= now && w.take(1) == 1 {
		due := int64(c.next)
		slot := (tail + n) % p
		c.start[slot], c.sent[slot] = due, now
		if in && due >= c.freed {
			recordLatency(w.lag, now-due, 1)
		}
		c.next += w.gapAfter()
		n++
	}
	if n == 0 {
		return
	}
	if in {
		w.counts.sent += int64(n)
	}
	if c.pending == 0 {
		w.batches++
	}
	c.pending += n
	w.enqueue(c, c.s.batch(int(tail), int(n)))
}

// pollUntil returns the events ready on epfd, waiting for some until deadline (nanotime) at
// the most, to the nanosecond: epoll_pwait2 takes a timespec where epoll_wait takes
// milliseconds, which would spoil a schedule of requests a few hundred microseconds apart.
func pollUntil(epfd int, evs []unix.EpollEvent, deadline int64) []unix.EpollEvent {
	n := pollNow(epfd, evs)
	if d := deadline - nanotime(); n == 0 && d > 0 {
		ts := unix.NsecToTimespec(min(d, int64(sweepEvery)))
		r, _, e := unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(epfd), uintptr(unsafe.Pointer(unsafe.SliceData(evs))),
			uintptr(len(evs)), uintptr(unsafe.Pointer(&ts)), 0, 0)
		if e == 0 {
			n = int(r)
		}
	}
	return evs[:n]
}

// processCPU is the CPU time this process has used so far (user and system, all threads).
func processCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// openResult merges what the workers saw of the schedule.
func (r *runner) openResult(workers []*worker, elapsed time.Duration) *OpenLoop {
	lag := NewHistogram()
	var sent int64
	for _, w := range workers {
		lag.Merge(w.lag)
		sent += w.counts.sent
	}
	o := &OpenLoop{Rate: r.cfg.Rate, Arrival: r.cfg.Arrival.String(), Sent: sent, Lag: Summarize(lag), LagHist: lag,
		LagTolerance: r.cfg.LagTolerance}
	if elapsed > 0 {
		o.SentRate = float64(sent) / elapsed.Seconds()
		o.CPUPct = 100 * (r.cpu[1] - r.cpu[0]).Seconds() / elapsed.Seconds()
	}
	o.GeneratorBound = lag.ValueAtQuantile(99) > r.cfg.LagTolerance.Microseconds()
	return o
}

// newLagHistogram is an open-loop worker's send-lag histogram (µs); nil in a closed loop.
func (r *runner) newLagHistogram() *hdrhistogram.Histogram {
	if !r.open {
		return nil
	}
	return NewHistogram()
}
