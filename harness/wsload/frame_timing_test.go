package wsload

import (
	"testing"
	"time"

	"github.com/bindrace/bindrace/harness/load"
	"github.com/bindrace/bindrace/harness/scenario"
)

// echoBatch is what a server sends back for one batch of n size-byte messages of c: n
// unmasked binary frames, back to back, as they arrive in one read under load.
func echoBatch(w *worker, c *conn, n int) []byte {
	var b []byte
	for i := range n {
		b = appendFrame(b, opBinary, c.plain[i*w.size:(i+1)*w.size], false, 0)
	}
	return b
}

// benchWorker is a worker with one connection in the middle of a run, without sockets.
func benchWorker(tb testing.TB, p int) (*worker, *conn) {
	r := &runner{cfg: Config{Size: scenario.WSMessageSize, Pipelining: p}, countMode: false}
	r.win.Open() // the window is open: the measured path is the one taken
	w, err := newWorker(r, 1, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(w.Shutdown)
	c := &w.conns[0]
	c.state = csOpen
	w.fill(c, p)
	return w, c
}

// consumeOnce is the read side of one batch: parse, compare every echo, book them.
func consumeOnce(tb testing.TB, w *worker, c *conn, batch, read []byte, p int) {
	copy(read, batch) // a fresh read each time (the parser would unmask in place)
	c.sent, c.pending, c.batchStart = int32(p), int32(p), load.Nanotime()-int64(50*time.Microsecond)
	w.consume(c, read, load.Nanotime())
	if c.pending != 0 || c.state != csOpen {
		tb.Fatalf("pending %d, state %d, errors %v", c.pending, c.state, w.counts.errs)
	}
}

// BenchmarkFrameReader is the receive hot path for ten 64-byte echoes in one read: frame
// parsing, the payload comparison and the histogram. It must not allocate.
func BenchmarkFrameReader(b *testing.B) {
	const p = 10
	w, c := benchWorker(b, p)
	batch := echoBatch(w, c, p)
	read := make([]byte, len(batch))
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	for b.Loop() {
		consumeOnce(b, w, c, batch, read, p)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*p), "ns/message")
}

// BenchmarkParserOnly is the frame parser alone over the same read.
func BenchmarkParserOnly(b *testing.B) {
	w, c := benchWorker(b, 10)
	batch := echoBatch(w, c, 10)
	var f frameParser
	b.SetBytes(int64(len(batch)))
	b.ReportAllocs()
	for b.Loop() {
		for off := 0; off < len(batch); {
			n, ev, _ := f.next(batch[off:])
			off += n
			if ev != evFrameEnd {
				b.Fatalf("event %d", ev)
			}
		}
	}
}

// BenchmarkFillBatch is the send side: ten frames stamped, given fresh keys and re-masked.
func BenchmarkFillBatch(b *testing.B) {
	w, c := benchWorker(b, 10)
	b.ReportAllocs()
	for b.Loop() {
		w.fill(c, 10)
	}
}

// The zero-allocation property is checked in every test run, not only when benchmarking.
func TestHotPathDoesNotAllocate(t *testing.T) {
	const p = 10
	w, c := benchWorker(t, p)
	batch := echoBatch(w, c, p)
	read := make([]byte, len(batch))
	if a := testing.AllocsPerRun(200, func() { consumeOnce(t, w, c, batch, read, p) }); a != 0 {
		t.Errorf("frame reader: %v allocs per batch", a)
	}
	if a := testing.AllocsPerRun(200, func() { w.fill(c, p) }); a != 0 {
		t.Errorf("fill: %v allocs per batch", a)
	}
}
