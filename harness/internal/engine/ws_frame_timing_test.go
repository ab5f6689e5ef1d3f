package engine

import (
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/scenario"
)

// echoBatch is what a server sends back for one batch of n messages of s: n unmasked binary
// frames, back to back, as they arrive in one read under load.
func echoBatch(s *wsSession, n int) []byte {
	var b []byte
	size := s.p.size
	for i := range n {
		b = appendFrame(b, opBinary, s.plain[i*size:(i+1)*size], false, 0)
	}
	return b
}

// benchWorker is a worker with one WebSocket connection in the middle of a run, without
// sockets.
func benchWorker(tb testing.TB, p int) (*worker, *conn, *wsSession) {
	cfg, err := Config{Protocol: WebSocket, Addr: "127.0.0.1:1", Size: scenario.WSMessageSize, Pipelining: p,
		Connections: 1, Duration: time.Second}.Normalized()
	if err != nil {
		tb.Fatal(err)
	}
	r, err := newRunner(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	r.win.open() // the window is open: the measured path is the one taken
	w, err := newWorker(r, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { shutdown([]*worker{w}) })
	c := &w.conns[0]
	c.state = csOpen
	s := c.s.(*wsSession)
	s.fill(0, p)
	return w, c, s
}

// consumeOnce is the read side of one batch: parse, compare every echo, book them.
func consumeOnce(tb testing.TB, w *worker, c *conn, s *wsSession, batch, read []byte, p int) {
	copy(read, batch) // a fresh read each time (the parser would unmask in place)
	c.pending, c.head = int32(p), 0
	for i := range p {
		c.sent[i] = nanotime() - int64(50*time.Microsecond)
	}
	w.in = true
	s.consume(w, c, read, nanotime())
	if c.pending != 0 || c.state != csOpen {
		tb.Fatalf("pending %d, state %d, errors %v", c.pending, c.state, w.counts.errs)
	}
}

// BenchmarkFrameReader is the receive hot path for ten 64-byte echoes in one read: frame
// parsing, the payload comparison and the histogram. It must not allocate.
func BenchmarkFrameReader(b *testing.B) {
	const p = 10
	w, c, s := benchWorker(b, p)
	batch := echoBatch(s, p)
	read := make([]byte, len(batch))
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	for b.Loop() {
		consumeOnce(b, w, c, s, batch, read, p)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*p), "ns/message")
}

// BenchmarkParserOnly is the frame parser alone over the same read.
func BenchmarkParserOnly(b *testing.B) {
	_, _, s := benchWorker(b, 10)
	batch := echoBatch(s, 10)
	var f frameParser
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	for b.Loop() {
		for off := 0; off < len(batch); {
			n, ev, _ := f.next(batch[off:])
			off += n
			if ev != wsFrameEnd {
				b.Fatalf("event %d", ev)
			}
		}
	}
}

// BenchmarkFillBatch is the send side: ten frames stamped, given fresh keys and re-masked.
func BenchmarkFillBatch(b *testing.B) {
	_, _, s := benchWorker(b, 10)
	b.ReportAllocs()
	for b.Loop() {
		s.fill(0, 10)
	}
}

// The zero-allocation property is checked in every test run, not only when benchmarking.
func TestHotPathDoesNotAllocate(t *testing.T) {
	const p = 10
	w, c, s := benchWorker(t, p)
	batch := echoBatch(s, p)
	read := make([]byte, len(batch))
	if a := testing.AllocsPerRun(200, func() { consumeOnce(t, w, c, s, batch, read, p) }); a != 0 {
		t.Errorf("frame reader: %v allocs per batch", a)
	}
	if a := testing.AllocsPerRun(200, func() { s.fill(0, p) }); a != 0 {
		t.Errorf("fill: %v allocs per batch", a)
	}
}
