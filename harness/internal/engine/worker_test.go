package engine

import (
	"testing"

	"golang.org/x/sys/unix"
)

func testWorkers(t *testing.T, n int) (*runner, []*worker) {
	t.Helper()
	cfg, err := Config{Addr: "127.0.0.1:1", Requests: pingReq("127.0.0.1:1"), Connections: n, Count: 1}.Normalized()
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = n // one connection each
	r, err := newRunner(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ws := make([]*worker, n)
	for i := range ws {
		if ws[i], err = newWorker(r, i); err != nil {
			t.Fatal(err)
		}
		ws[i].tally = newTally(true, 0) // nothing to send: a closed connection stays closed
		t.Cleanup(func() { shutdown(ws[i : i+1]) })
	}
	return r, ws
}

// Regression: unix.Connect encodes the address into a buffer inside the Sockaddr value, so a
// Sockaddr shared by all workers is written by all of them at once (a data race that -race
// reports in any multi-worker run). Each worker must connect with its own copy.
func TestWorkersOwnSockaddr(t *testing.T) {
	_, ws := testWorkers(t, 3)
	for i, w := range ws {
		sa, ok := w.sa.(*unix.SockaddrInet4)
		if !ok || sa.Port != 1 || sa.Addr != [4]byte{127, 0, 0, 1} {
			t.Fatalf("worker %d: sockaddr %#v", i, w.sa)
		}
		for _, o := range ws[:i] {
			if o.sa == w.sa {
				t.Fatalf("workers share one Sockaddr %p", sa)
			}
		}
	}
}

// Regression: with edge-triggered epoll, a close that arrived together with the last data
// raises no further edge. A worker that stopped at the short read would keep a dead
// connection (and in Duration mode write its next batch into it, turning the server's quiet
// close into a reset and a read error). When the event reports the hang-up, the worker must
// read on to EOF: the response counts, and the close is seen as one between batches.
func TestHangupWithDataReadsToEOF(t *testing.T) {
	r, ws := testWorkers(t, 1)
	w := ws[0]
	r.win.open()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := &w.conns[0]
	c.fd, c.state, c.pending, c.sent[0] = fds[0], csOpen, 1, nanotime()
	if _, err := unix.Write(fds[1], []byte(pingResp)); err != nil {
		t.Fatal(err)
	}
	unix.Close(fds[1]) // the response and the close are both queued before the worker reads
	w.event(c, unix.EPOLLIN|unix.EPOLLRDHUP)
	if w.measured != 1 || w.counts.errs != [numKinds]int64{} {
		t.Fatalf("responses %d, errors %v", w.measured, w.counts.errorMap())
	}
	if c.state != csDown || c.fd != -1 {
		t.Fatalf("the close was missed: state %d, fd %d", c.state, c.fd)
	}
}
