package engine

import "bytes"

// The framer finds where each HTTP/1.1 response ends in a connection's byte stream (RFC 9112
// §6.3). It never copies: header blocks are parsed in place, bodies are skipped by count, so a
// 14 MB body costs no more buffer than a 2-byte one. The only bytes a caller must keep between
// reads are an incomplete status line + header block, chunk-size line or trailer line; those
// are bounded (maxHeaderBytes, maxLineBytes) so a broken server cannot grow memory.
//
// Unlike a byte-at-a-time parser (wrk uses http_parser), a header block is only parsed once it
// is complete; with pipelining the common read holds whole responses, so the common case is one
// pass over each header line and no per-byte state transitions.

const (
	// maxHeaderBytes bounds a status line plus header block, and the trailer section.
	maxHeaderBytes = 64 << 10
	// maxLineBytes bounds a chunk-size line (with extensions) and one trailer line.
	maxLineBytes = 8 << 10
	// maxBodyBytes is far above any real body; it keeps length arithmetic clear of overflow.
	maxBodyBytes = 1 << 50
)

type framerState uint8

const (
	stHead       framerState = iota // at a status line (a response starts here)
	stBody                          // remain bytes of a Content-Length body left
	stChunkSize                     // at a chunk-size line
	stChunkData                     // remain bytes of chunk data left
	stChunkEnd                      // at the CRLF that ends chunk data
	stTrailer                       // at a trailer line or the empty line ending the message
	stUntilClose                    // body delimited by the server closing the connection
)

// event is what framer.next stopped at.
type event uint8

const (
	evMore      event = iota // every byte it could use is consumed; keep b[n:] and call again with more appended
	evResponse               // a complete response ends at b[n]; see status and close
	evMalformed              // the stream is not HTTP/1.1 responses; see why
)

type framer struct {
	state  framerState
	remain int64 // body or chunk bytes left; trailer bytes seen in stTrailer
	status int   // status code of the current (or just completed) response
	close  bool  // the server ends the connection after the current response
	why    string
	seen   *headCache // optional, shared by the connections of one worker
}

// next consumes b up to the end of the next complete response, or as far as it can.
// Headers and lines are never consumed partially: on evMore the caller keeps b[n:] (at most
// maxHeaderBytes) and calls again with those bytes followed by newly read ones.
//
//funclen:long the per-response state machine of the hot path: one loop over all states lets a pipelined read cross many responses without a call per transition
func (f *framer) next(b []byte) (n int, ev event) {
	for {
		switch f.state {
		case stHead:
			if n == len(b) {
				return n, evMore
			}
			var m int
			var e *headEntry
			if f.seen != nil {
				e = f.seen.lookup(b[n:])
			}
			if e != nil {
				f.status, f.close, f.state, f.remain = e.status, e.close, e.state, e.remain
				m, ev = len(e.block), evResponse
			} else {
				m, ev = f.head(b[n:])
				if ev == evResponse && f.seen != nil && m <= maxCachedHead {
					f.seen.store(b[n:n+m], f)
				}
			}
			n += m
			if ev != evResponse {
				return n, ev
			}
			if f.state == stHead {
				if f.status >= 200 { // bodiless final response (204, 304, Content-Length: 0)
					return n, evResponse
				}
				// 1xx interim response: not counted; the final response follows
			}
		case stBody:
			k := int64(len(b) - n)
			if k >= f.remain {
				n += int(f.remain)
				f.remain = 0
				f.state = stHead
				return n, evResponse
			}
			f.remain -= k
			return len(b), evMore
		case stChunkSize:
			line, ok := f.line(b[n:])
			if !ok {
				return n, f.lineEv(b[n:])
			}
			n += len(line) + 1
			size, ok := chunkSize(line)
			if !ok {
				return n, f.malformed("bad chunk size line")
			}
			if size == 0 {
				f.state, f.remain = stTrailer, 0
			} else {
				f.state, f.remain = stChunkData, size
			}
		case stChunkData:
			k := int64(len(b) - n)
			if k < f.remain {
				f.remain -= k
				return len(b), evMore
			}
			n += int(f.remain)
			f.remain = 0
			f.state = stChunkEnd
		case stChunkEnd:
			switch len(b) - n {
			case 0:
				return n, evMore
			case 1:
				if b[n] != '\r' {
					return n, f.malformed("chunk data not followed by CRLF")
				}
				return n, evMore
			}
			if b[n] != '\r' || b[n+1] != '\n' {
				return n, f.malformed("chunk data not followed by CRLF")
			}
			n += 2
			f.state = stChunkSize
		case stTrailer:
			line, ok := f.line(b[n:])
			if !ok {
				return n, f.lineEv(b[n:])
			}
			n += len(line) + 1
			if len(line) == 1 { // "\r": end of the trailer section and of the message
				f.state = stHead
				return n, evResponse
			}
			if f.remain += int64(len(line)); f.remain > maxHeaderBytes {
				return n, f.malformed("trailer section too large")
			}
			if line[0] != ' ' && line[0] != '\t' && !validField(line[:len(line)-1]) {
				return n, f.malformed("bad trailer line")
			}
		case stUntilClose:
			return len(b), evMore
		}
	}
}

// eof reports what the server closing the connection means for the response in progress:
// evResponse if it completes a close-delimited body, evMore if no response was started, and
// evMalformed (why set) if a response was cut short.
func (f *framer) eof(partial int) event {
	switch {
	case f.state == stUntilClose:
		f.state = stHead
		return evResponse
	case f.state == stHead && partial == 0:
		return evMore
	}
	f.why = "response cut short by close"
	return evMalformed
}

func (f *framer) reset() { *f = framer{seen: f.seen} }

func (f *framer) malformed(why string) event {
	f.why = why
	return evMalformed
}

// line returns b up to and including the CR of the first CRLF-terminated line, without the LF.
func (f *framer) line(b []byte) ([]byte, bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return nil, false
	}
	return b[:i], true
}

// lineEv says whether an unterminated line may still complete or is already too long,
// so a server streaming garbage without newlines is caught without waiting for a timeout.
func (f *framer) lineEv(b []byte) event {
	if len(b) > maxLineBytes {
		return f.malformed("line too long")
	}
	return evMore
}

var httpPrefix = []byte("HTTP/1.")

// head parses a status line and header block at the start of b and sets up body framing.
// It consumes nothing (evMore) until the whole block is there.
//
//funclen:long the head parser, one pass over a complete block: status line, the field loop, then the framing verdict of RFC 9112 §6.3 from what the loop saw
func (f *framer) head(b []byte) (int, event) {
	// Reject a wrong start at once, not after maxHeaderBytes of garbage or a timeout.
	if k := min(len(b), len(httpPrefix)); !bytes.Equal(b[:k], httpPrefix[:k]) {
		return 0, f.malformed("bad status line")
	}
	i := lineEnd(b, 0)
	if i < 0 {
		return 0, f.more(b)
	}
	// "HTTP/1.1 200\r" is the shortest status line; the reason phrase may be empty.
	sl := b[:i]
	if len(sl) < 13 || sl[len(sl)-1] != '\r' || sl[8] != ' ' ||
		(sl[7] != '0' && sl[7] != '1') || (sl[12] != ' ' && sl[12] != '\r') {
		return 0, f.malformed("bad status line")
	}
	d0, d1, d2 := sl[9]-'0', sl[10]-'0', sl[11]-'0'
	if d0 < 1 || d0 > 5 || d1 > 9 || d2 > 9 {
		return 0, f.malformed("bad status code")
	}
	status := int(d0)*100 + int(d1)*10 + int(d2)
	http10 := sl[7] == '0'

	var (
		length    int64 = -1
		te        bool  // Transfer-Encoding present
		chunked   bool  // ... and its final coding is chunked
		close     bool
		keepAlive bool
	)
	p := i + 1
	for {
		e := lineEnd(b, p)
		if e < 0 {
			return 0, f.more(b)
		}
		line := b[p:e]
		p = e + 1
		if p > maxHeaderBytes {
			return 0, f.malformed("header block too large")
		}
		if len(line) == 0 || line[len(line)-1] != '\r' {
			return 0, f.malformed("header line not ended by CRLF")
		}
		line = line[:len(line)-1]
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue // obs-fold continuation: RFC 9112 §5.2 lets a client treat it as SP
		}
		// Names are short: a plain loop beats IndexByte's vector set-up here.
		colon := 0
		for colon < len(line) && line[colon] != ':' {
			colon++
		}
		if colon == 0 || colon == len(line) || line[colon-1] == ' ' || line[colon-1] == '\t' {
			return 0, f.malformed("bad header line")
		}
		// Only three header names decide framing; compare lengths before bytes so the
		// common headers (Date, Server, Content-Type) cost one switch.
		name, value := line[:colon], trimOWS(line[colon+1:])
		switch len(name) {
		case 14:
			if !equalFold(name, "content-length") {
				continue
			}
			v, ok := parseLength(value)
			if !ok || (length >= 0 && v != length) {
				return 0, f.malformed("bad content-length")
			}
			length = v
		case 17:
			if !equalFold(name, "transfer-encoding") {
				continue
			}
			te = true
			chunked = lastTokenIs(value, "chunked")
		case 10:
			if !equalFold(name, "connection") {
				continue
			}
			close = close || hasToken(value, "close")
			keepAlive = keepAlive || hasToken(value, "keep-alive")
		}
	}

	f.status = status
	f.close = close || (http10 && !keepAlive)
	f.remain = 0
	f.state = stHead
	switch {
	case status == 101:
		return 0, f.malformed("unexpected 101 switching protocols")
	case status < 200, status == 204, status == 304:
		// no body (RFC 9112 §6.3 rule 1); a 1xx is followed by the final response
	case te && chunked: // Transfer-Encoding overrides Content-Length (§6.3 rule 3)
		f.state = stChunkSize
	case te:
		f.state = stUntilClose
	case length > 0:
		f.state, f.remain = stBody, length
	case length == 0:
	default:
		f.state = stUntilClose
	}
	if f.state == stUntilClose {
		f.close = true
	}
	return p, evResponse
}

// lineEnd returns the index of the first '\n' in b at or after i, or -1.
func lineEnd(b []byte, i int) int {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j
	}
	return -1
}

// more is head's verdict on an incomplete block: wait, unless it is already too large.
func (f *framer) more(b []byte) event {
	if len(b) > maxHeaderBytes {
		return f.malformed("header block too large")
	}
	return evMore
}
