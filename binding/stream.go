package binding

/*
#include "bindrace.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"
)

// streamPiece bounds one native write so backpressure acts within a large Write.
const streamPiece = 64 << 10

// Stream is a response body written piece by piece (see Response.Stream). Use it from one
// goroutine at a time.
type Stream struct {
	l         *loop
	c         *C.br_stream
	token     uint64
	wake      chan struct{}
	inHandler atomic.Bool // writes from the loop goroutine must not wait for it
	closed    bool
}

func (l *loop) openStream(contentLength int64, inHandler bool) *Stream {
	s := &Stream{l: l, token: l.nextToken.Add(1), wake: make(chan struct{}, 1)}
	s.inHandler.Store(inHandler)
	if !l.locked(func() { s.c = C.br_stream_open(l.c, C.uint64_t(s.token), C.int64_t(contentLength)) }) {
		return nil
	}
	l.smu.Lock()
	l.streams[s.token] = s
	l.smu.Unlock()
	l.app.owed.Add(1)
	return s
}

// Write queues a copy of p, waiting while the connection has a full send buffer. It fails
// with ErrClosed once the connection is gone.
func (s *Stream) Write(p []byte) (int, error) {
	if s.closed {
		return 0, ErrFinished
	}
	done := 0
	for done < len(p) {
		piece := p[done:]
		if len(piece) > streamPiece {
			piece = piece[:streamPiece]
		}
		var rc C.int
		force := C.int(0)
		if s.inHandler.Load() {
			force = 1
		}
		if !s.l.locked(func() {
			rc = C.br_stream_write(s.c, unsafe.Pointer(&piece[0]), C.size_t(len(piece)), force)
		}) {
			return done, ErrClosed
		}
		switch rc {
		case 1:
			done += len(piece)
		case 0:
			<-s.wake
		default:
			return done, ErrClosed
		}
	}
	return done, nil
}

// Close ends the body (chunked: the last chunk; fixed length: a short body closes the
// connection) and releases the stream.
func (s *Stream) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.l.app.owed.Add(-1)
	s.l.smu.Lock()
	delete(s.l.streams, s.token)
	s.l.smu.Unlock()
	if !s.l.locked(func() { C.br_stream_close(s.c) }) {
		return ErrClosed
	}
	return nil
}
