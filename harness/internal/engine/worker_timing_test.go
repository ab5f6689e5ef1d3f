package engine

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkConsumeBatch is the per-batch hot path of a worker without the server: frame ten
// pipelined responses that arrived in one read, record their latency, and write the next
// batch (to a socketpair drained now and then). It must not allocate.
func BenchmarkConsumeBatch(b *testing.B) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	cfg, err := Config{Addr: "127.0.0.1:1", Requests: pingReq("127.0.0.1:1"), Pipelining: 10, Connections: 1, Duration: 1}.Normalized()
	if err != nil {
		b.Fatal(err)
	}
	r, err := newRunner(cfg)
	if err != nil {
		b.Fatal(err)
	}
	r.win.open() // measuring, so the histogram and counters are on the path
	w, err := newWorker(r, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Close(w.epfd)
	c := &w.conns[0]
	c.fd, c.state = fds[0], csOpen
	c.pending = 10
	for i := range c.sent {
		c.sent[i] = nanotime()
	}
	batch := []byte(strings.Repeat(benchResp, 10))
	sink := make([]byte, 64<<10)
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		copy(w.buf[maxCarry:], batch) // as the read would have
		w.received(c, len(batch), nanotime(), false)
		if c.pending != 10 || c.state != csOpen {
			b.Fatalf("pending %d state %d", c.pending, c.state)
		}
		if i++; i%64 == 0 {
			for {
				if n, _ := unix.Read(fds[1], sink); n <= 0 {
					break
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*10), "ns/response")
	if w.measured != int64(b.N)*10 || len(w.counts.errs) == 0 || w.counts.errs[kWrite] != 0 {
		b.Fatalf("responses %d errors %v", w.measured, w.counts.errs)
	}
}
