package binding

/*
#include "bindrace.h"
*/
import "C"

import (
	"encoding/binary"
	"unsafe"
)

// minAsyncHead is the first buffer a detached Response's headers get: a few headers fit in it,
// so they cost one allocation.
const minAsyncHead = 128

const (
	resOpen     = iota
	resDetached // the handler's Response after Detach: inert
	resFinished
)

// Response is the answer being built. Inside a handler it writes straight into the native
// loop's response arena (no allocation); the core adds the status line, Date, Content-Length
// and Connection. After Detach, the returned Response buffers in Go and may be finished from
// any goroutine with End.
type Response struct {
	l     *loop
	out   *C.br_response // the batch slot; nil once detached (async)
	conn  uint64
	seq   uint32
	state int

	status  int
	flags   C.uint32_t
	shared  *Body
	stream  *Stream
	headOff uint64 // sync: this answer's bytes in the arenas are [off, end)
	headEnd uint64
	bodyOff uint64
	bodyEnd uint64
	head    []byte // async: Go-side buffers
	body    []byte
	call    *completeArgs // detached: the answer's arguments for the core (end), see detached
	headers int           // Header calls so far: the position of the next (headerLines)
}

// detached is what Detach allocates: the Response and, in the same object, the block its end
// passes to the core. On end's stack the block would cost no allocation either, but -asan's
// pointer checks move it to the heap at every call; inside the Response in-handler answers
// would clear it on every request (+2.5% instructions on ping).
type detached struct {
	Response
	args completeArgs
}

// begin readies the loop's own Response (loop.res) for the next request of the batch. It sets
// field by field only what a handler can have changed: clearing the whole Response from a
// literal cost 62 instructions a response on ping (the literal built on the stack, then copied
// in), these stores about 20. The fields it leaves are fixed for the loop's Response: l is its
// loop (openLoop), and head, body and call stay nil, as they belong to a Response without an
// out slot (a detached one, made by Detach), which this one never is once begun. This answer's
// bytes start in the arenas where the previous answer's ended (run sets those ends to 0 at each
// batch; recovered drops a panicked answer's bytes by setting its ends back to its starts).
func (w *Response) begin(cr *C.br_request, out *C.br_response) {
	w.out = out
	w.shared, w.stream = nil, nil
	w.conn, w.seq = uint64(cr.conn), uint32(cr.seq)
	w.state, w.status, w.flags, w.headers = resOpen, 200, 0, 0
	w.headOff, w.bodyOff = w.headEnd, w.bodyEnd
}

// Status sets the status code (200 unless set).
func (w *Response) Status(code int) {
	if code >= 100 && code <= 999 {
		w.status = code
	}
}

// validName reports whether k is an HTTP token (RFC 9110: letters, digits and !#$%&'*+-.^_`|~).
// Header names are mostly letters, digits and '-': it checks those eight bytes at a time, and
// only a word holding another byte goes through the table byte by byte (a name of 12 letters
// cost 110 instructions through the table alone; ping sets one a response).
func validName(k string) bool {
	if k == "" {
		return false
	}
	b := unsafe.Slice(unsafe.StringData(k), len(k))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if !commonTokenWord(binary.LittleEndian.Uint64(b[i:])) && !tokenBytes(b[i:i+8]) {
			return false
		}
	}
	return tokenBytes(b[i:])
}

// commonTokenWord reports whether every byte of x is a letter, a digit or '-'. Each test is
// exact per byte: with no byte over 0x7f no sum below carries into the next byte.
func commonTokenWord(x uint64) bool {
	const ones, highs, lows = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	if x&highs != 0 {
		return false
	}
	y := x | 0x20*ones                                         // A-Z to a-z (and other bytes elsewhere: only letters are read from y)
	letter := (y + (0x80-'a')*ones) &^ (y + (0x80-'z'-1)*ones) // 'a' <= y <= 'z'
	digit := (x + (0x80-'0')*ones) &^ (x + (0x80-'9'-1)*ones)  // '0' <= x <= '9'
	z := x ^ '-'*ones
	dash := ^((z&lows + lows) | z | lows) // a zero byte of z, exactly
	return (letter|digit|dash)&highs == highs
}

func tokenBytes(b []byte) bool {
	for _, c := range b {
		if !tokenChar[c] {
			return false
		}
	}
	return true
}

// validValue reports whether v has no control byte but tab (no CR, LF, NUL or DEL). It checks
// eight bytes at a time: a word with no byte under 0x20 and none equal to 0x7f is valid, and
// only a word that has one (a tab, or a bad byte) is looked at byte by byte.
func validValue(v string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	b := unsafe.Slice(unsafe.StringData(v), len(v))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		del := x ^ (0x7f * ones)
		if (x-0x20*ones)&^x&highs == 0 && (del-ones)&^del&highs == 0 {
			continue
		}
		if !validValueBytes(b[i : i+8]) {
			return false
		}
	}
	return validValueBytes(b[i:])
}

func validValueBytes(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

var tokenChar = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-32] = true, true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return
}()

func foldIs(s, lower string) bool { return len(s) == len(lower) && equalFold(s, lower) }

// Header adds a response header. A name or value with CR, LF or another control byte is
// refused with ErrInvalidHeader, so a response can never be split. Content-Length,
// Transfer-Encoding and Date are the server's (ErrReservedHeader); "Connection: close" closes
// the connection after this response.
func (w *Response) Header(k, v string) error {
	if w.state != resOpen {
		return ErrFinished
	}
	at := w.headers
	w.headers++
	if w.out != nil {
		if line := w.l.lines.lookup(at, k, v); line != nil {
			copy(w.l.headRoom(w.headEnd, uint64(len(line))), line)
			w.headEnd += uint64(len(line))
			return nil
		}
	}
	if !validName(k) || !validValue(v) {
		return ErrInvalidHeader
	}
	switch len(k) {
	case 4, 14, 17:
		if foldIs(k, "date") || foldIs(k, "content-length") || foldIs(k, "transfer-encoding") {
			return ErrReservedHeader
		}
	case 10:
		if foldIs(k, "connection") {
			if !foldIs(v, "close") {
				return ErrReservedHeader
			}
			w.flags |= C.BR_RES_CLOSE
			return nil
		}
	}
	n := len(k) + len(v) + 4
	if w.out == nil {
		if cap(w.head)-len(w.head) < n { // grow once for a typical head, not per append
			h := make([]byte, len(w.head), len(w.head)+max(n, minAsyncHead)) // not slices.Grow: under -asan it allocates twice
			copy(h, w.head)
			w.head = h
		}
		w.head = append(append(append(append(w.head, k...), ": "...), v...), "\r\n"...)
		return nil
	}
	a := w.l.headRoom(w.headEnd, uint64(n))
	// The separators are stored, not copied: a copy of two bytes is a call to memmove (about 20
	// instructions each, a header).
	i := copy(a, k)
	a[i], a[i+1] = ':', ' '
	i += 2 + copy(a[i+2:], v)
	a[i], a[i+1] = '\r', '\n'
	w.l.lines.remember(at, len(k), a)
	w.headEnd += uint64(n)
	return nil
}

// Close asks for the connection to be closed after this response.
func (w *Response) Close() { w.flags |= C.BR_RES_CLOSE }

// Write appends p to the body (buffered; never blocks).
func (w *Response) Write(p []byte) (int, error) {
	if w.state != resOpen {
		return 0, ErrFinished
	}
	if w.shared != nil || w.stream != nil {
		return 0, ErrResponseStarted
	}
	if w.out == nil {
		w.body = append(w.body, p...)
		return len(p), nil
	}
	copy(w.l.bodyRoom(w.bodyEnd, uint64(len(p))), p)
	w.bodyEnd += uint64(len(p))
	return len(p), nil
}

// WriteString appends s to the body.
func (w *Response) WriteString(s string) (int, error) {
	return w.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// SendBody makes b the whole body, sent zero-copy from native memory with backpressure.
func (w *Response) SendBody(b *Body) error {
	if w.state != resOpen {
		return ErrFinished
	}
	if w.bodyEnd != w.bodyOff || len(w.body) > 0 || w.stream != nil {
		return ErrResponseStarted
	}
	w.shared = b
	return nil
}

// Stream starts a streamed body: contentLength bytes, or chunked when contentLength < 0.
// The headers are final once it is called. Write to the stream from any goroutine (writes
// block while the connection's send buffer is full; inside the handler they never block) and
// Close it to end the response. Later pipelined responses wait for it.
func (w *Response) Stream(contentLength int64) (*Stream, error) {
	if w.state != resOpen {
		return nil, ErrFinished
	}
	if w.bodyEnd != w.bodyOff || len(w.body) > 0 || w.shared != nil || w.stream != nil {
		return nil, ErrResponseStarted
	}
	s := w.l.openStream(contentLength, w.out != nil)
	if s == nil {
		return nil, ErrClosed
	}
	w.stream = s
	if w.out == nil { // async: the head goes now, the body follows through the stream
		w.l.app.owed.Add(-1) // the Detach's debt is paid; the open stream owes until it closes
		w.end()
	}
	return s, nil
}

// Detach lets the handler return without answering; the returned Response is finished later
// with End, from any goroutine. Responses to later pipelined requests wait for it. Request
// views are invalid after the handler returns: copy what the async work needs first. Until
// every detached Response has ended, idle loops wait in Go's netpoller, so the goroutines
// that will end them get the processor at once. Hand the work to goroutines that stay rather
// than one started per request: a new goroutine grows its stack, copying, in deep work such as
// a database query (binding-server's dbroutes.go; docs/database.md).
func (w *Response) Detach() *Response {
	if w.state != resOpen || w.out == nil {
		return w
	}
	d := &detached{Response: Response{l: w.l, conn: w.conn, seq: w.seq, status: w.status,
		flags: w.flags, shared: w.shared}}
	a := &d.Response
	a.call = &d.args
	a.head = append([]byte(nil), w.arenaBytes(0, w.headOff, w.headEnd)...)
	a.body = append([]byte(nil), w.arenaBytes(1, w.bodyOff, w.bodyEnd)...)
	w.state = resDetached
	w.l.app.owed.Add(1)
	return a
}

func (w *Response) arenaBytes(which int, from, to uint64) []byte {
	return w.l.arena(which, 0, 0)[from:to]
}

// Send writes p as the rest of the body and ends the response. A detached Response hands p to
// the core, which copies it once before Send returns, so the caller may reuse p at once and
// nothing is buffered in Go (Write then End copies twice). Inside a handler it is Write; the
// return ends the response.
func (w *Response) Send(p []byte) error {
	if w.out != nil {
		_, err := w.Write(p)
		return err
	}
	if w.state != resOpen {
		return ErrFinished
	}
	if w.shared != nil || w.stream != nil {
		return ErrResponseStarted
	}
	if len(w.body) == 0 {
		w.body = p
	} else {
		w.body = append(w.body, p...)
	}
	err := w.End()
	w.body = nil // p is the caller's again
	return err
}

// End finishes a detached response (a no-op inside a handler: returning ends it). When the loop
// idles, End sends the answer itself, from the calling goroutine, without waking the loop.
func (w *Response) End() error {
	if w.out != nil {
		return nil
	}
	if w.state != resOpen {
		return ErrFinished
	}
	w.l.app.owed.Add(-1) // before the answer is posted, so whoever reads it sees the debt paid
	return w.end()
}

func (w *Response) end() error {
	w.state = resFinished
	flags := w.flags
	var sb *C.br_body
	var st *C.br_stream
	if w.shared != nil {
		flags |= C.BR_RES_BODY
		sb = w.shared.c
	}
	if w.stream != nil {
		flags |= C.BR_RES_STREAM
		st = w.stream.c
	}
	// w.call holds the head's and body's pointers, which keeps them alive while the core reads them.
	a := w.call
	*a = completeArgs{loop: w.l.c, conn: C.uint64_t(w.conn), seq: C.uint32_t(w.seq),
		status: C.uint32_t(w.status), flags: flags, head_len: C.size_t(len(w.head)),
		body_len: C.size_t(len(w.body)), shared: sb, stream: st}
	if len(w.head) > 0 {
		a.head = unsafe.Pointer(&w.head[0])
	}
	if len(w.body) > 0 {
		a.body = unsafe.Pointer(&w.body[0])
	}
	ok := w.l.locked(func() {
		if len(w.head)+len(w.body) <= maxDirectAnswer {
			completeDirect(a)
		} else {
			completeCgo(a)
		}
	})
	a.head, a.body = nil, nil // the caller's buffers are not kept alive by a finished Response
	if !ok {
		return ErrClosed
	}
	return nil
}

// finish hands a handler's answer to the batch (called when the handler returns).
func (w *Response) finish() {
	out := w.out
	if w.state == resDetached {
		out.flags = C.BR_RES_DETACHED
		return
	}
	if w.state != resOpen {
		return
	}
	w.state = resFinished
	flags := w.flags
	if w.shared != nil {
		flags |= C.BR_RES_BODY
		out.body = w.shared.c
	}
	if w.stream != nil {
		flags |= C.BR_RES_STREAM
		out.stream = w.stream.c
		w.stream.inHandler.Store(false)
	}
	out.status = C.uint32_t(w.status)
	out.flags = flags
	out.head_off = C.uint32_t(w.headOff)
	out.head_len = C.uint32_t(w.headEnd - w.headOff)
	out.body_off = C.uint32_t(w.bodyOff)
	out.body_len = C.uint32_t(w.bodyEnd - w.bodyOff)
}
