package binding

// #include "bindrace.h"
import "C"

// Stats are running totals of the app's event loops since Listen: how the load arrived, as the
// server saw it. Two readings a window apart give, per response, the reads and wake-ups it cost
// and how many requests shared one crossing into Go; part of a server's efficiency is the
// shape of the load, and these say which shape a run met.
type Stats struct {
	Wakeups  uint64 `json:"wakeups"`  // epoll_wait calls that returned events
	Reads    uint64 `json:"reads"`    // recv calls that brought bytes
	Requests uint64 `json:"requests"` // HTTP requests parsed (static routes included)
	Sends    uint64 `json:"sends"`    // sendmsg calls that wrote
	Batches  uint64 `json:"batches"`  // crossings from the core into Go with work
}

// Stats sums the loops' totals. Safe from any goroutine while the app runs; zero before Listen
// and after Shutdown.
func (a *App) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	var s Stats
	if a.state != 1 {
		return s
	}
	for _, l := range a.loops {
		var st C.br_stats
		C.br_loop_stats(l.c, &st)
		s.Wakeups += uint64(st.wakeups)
		s.Reads += uint64(st.reads)
		s.Requests += uint64(st.requests)
		s.Sends += uint64(st.sends)
		s.Batches += uint64(st.batches)
	}
	return s
}
