package engine

import "sync/atomic"

// BuildFunc renders HTTP request number seq, appended to dst, for loads whose requests differ
// every time (Config.Build: the database scenarios fill a key in per request). Each connection
// numbers its requests from its own base (connection number << 32), so seq is unique in a run
// and the same connection sends the same sequence every run.
type BuildFunc func(dst []byte, seq uint64) []byte

// builder renders one connection's batches through a BuildFunc into buffers it reuses, so a
// load allocates nothing per request once the buffers have grown. A batch's bytes may wait in
// the connection's write queue until the server has read them, so a buffer is reused only
// after Pipelining more batches: every batch holds at least one request, and a batch with
// bytes still queued has its last request, and every later batch's, in flight, at most
// Pipelining in all; Pipelining+1 buffers in rotation are therefore never overwritten while
// queued.
type builder struct {
	build BuildFunc
	bufs  [][]byte
	next  int
	seq   uint64
}

func newBuilder(build BuildFunc, pipelining int, conn uint64) *builder {
	return &builder{build: build, bufs: make([][]byte, pipelining+1), seq: conn << 32}
}

// batch renders the connection's next n requests as one write.
func (b *builder) batch(n int) []byte {
	buf := b.bufs[b.next][:0]
	for range n {
		buf = b.build(buf, b.seq)
		b.seq++
	}
	b.bufs[b.next] = buf
	b.next = (b.next + 1) % len(b.bufs)
	return buf
}

// connNumbers hands out connection numbers for builders, across a run's workers.
type connNumbers struct{ n atomic.Uint64 }

func (c *connNumbers) take() uint64 { return c.n.Add(1) - 1 }
