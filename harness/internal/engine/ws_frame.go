package engine

import (
	"encoding/binary"
	"math/bits"
)

// RFC 6455 §5.2 opcodes.
const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA
)

const (
	maxHeaderLen  = 14  // 2 + 8 (64-bit length) + 4 (mask)
	maxControlLen = 125 // §5.5: control frames carry at most 125 payload bytes
	closeNormal   = 1000
)

// headerLen is the size of a frame header for a payload of n bytes.
func headerLen(n int, masked bool) int {
	h := 2
	switch {
	case n > 0xFFFF:
		h += 8
	case n > 125:
		h += 2
	}
	if masked {
		h += 4
	}
	return h
}

// putHeader writes a final frame's header for an n-byte payload into dst (which must hold
// headerLen(n, masked) bytes) and returns its length. The length uses the shortest encoding,
// as §5.2 requires. A masked header ends with the 4 mask bytes of key (little-endian order,
// matching xorMask).
func putHeader(dst []byte, op byte, n int, masked bool, key uint32) int {
	dst[0] = 0x80 | op // FIN; RSV bits zero: no extension was negotiated
	var m byte
	if masked {
		m = 0x80
	}
	i := 2
	switch {
	case n > 0xFFFF:
		dst[1] = m | 127
		binary.BigEndian.PutUint64(dst[2:], uint64(n))
		i = 10
	case n > 125:
		dst[1] = m | 126
		binary.BigEndian.PutUint16(dst[2:], uint16(n))
		i = 4
	default:
		dst[1] = m | byte(n)
	}
	if masked {
		binary.LittleEndian.PutUint32(dst[i:], key)
		i += 4
	}
	return i
}

// appendFrame appends one whole final frame (header, then payload masked with key when
// masked). For rare frames (control, verification); the load path re-masks prebuilt frames
// in place instead.
func appendFrame(dst []byte, op byte, payload []byte, masked bool, key uint32) []byte {
	var h [maxHeaderLen]byte
	hn := putHeader(h[:], op, len(payload), masked, key)
	dst = append(dst, h[:hn]...)
	start := len(dst)
	dst = append(dst, payload...)
	if masked {
		xorMask(dst[start:], dst[start:], key, 0)
	}
	return dst
}

// xorMask writes src XOR the mask into dst (dst and src may be the same slice), where pos is
// the offset of src[0] within the frame's payload (the mask repeats every 4 bytes from the
// payload's start, §5.3). It works 8 bytes at a time because masking is the one per-byte cost
// the sender pays on every message. key holds the 4 mask bytes in little-endian order, i.e.
// mask byte j is byte(key >> (8*j)). Returns pos+len(src).
func xorMask(dst, src []byte, key uint32, pos int) int {
	// Rotate the key so that its low byte is the mask byte for src[0].
	k := bits.RotateLeft32(key, -8*(pos&3))
	k64 := uint64(k) | uint64(k)<<32
	n := len(src)
	dst = dst[:n]
	i := 0
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(src[i:])^k64)
	}
	for ; i < n; i++ {
		dst[i] = src[i] ^ byte(k>>(8*(i&3)))
	}
	return pos + n
}

// wsEvent is what frameParser.next found.
type wsEvent uint8

const (
	wsMore     wsEvent = iota // every byte given was consumed; the frame goes on in the next read
	wsChunk                   // chunk is part of the current frame's payload; more follows
	wsFrameEnd                // chunk (maybe empty) ends the current frame's payload
	wsProtocol                // the bytes break RFC 6455; why says how
)

// frameParser turns a byte stream into frames without copying payloads: next hands back
// slices of the caller's buffer, so a 64-byte echo is compared where it landed. Only an
// incomplete header (at most 14 bytes) is kept across reads, so a frame may be split at any
// byte. It holds no pointers to the caller's data between calls.
type frameParser struct {
	// Current frame, valid from its first wsChunk/wsFrameEnd to its wsFrameEnd.
	op     byte
	fin    bool
	masked bool
	key    uint32
	pos    int    // payload bytes of the frame seen so far (mask phase)
	remain uint64 // payload bytes of the frame still to come

	inPayload bool
	hdr       [maxHeaderLen]byte
	hn        int // bytes of an incomplete header held in hdr

	// allowMasked accepts masked frames (unmasking them in place). A client must fail on a
	// masked frame from the server (§5.1); tests use it to decode the client's own frames.
	allowMasked bool
	maxPayload  uint64 // 0: no limit
	why         string // set with wsProtocol
}

func (f *frameParser) reset() {
	*f = frameParser{allowMasked: f.allowMasked, maxPayload: f.maxPayload}
}

// next consumes bytes from the front of p and returns how many, what it found, and for
// wsChunk/wsFrameEnd the payload bytes (a subslice of p, unmasked in place if masked).
// Every frame, empty ones included, yields exactly one wsFrameEnd.
func (f *frameParser) next(p []byte) (int, wsEvent, []byte) {
	n := 0
	if !f.inPayload {
		var h []byte
		if f.hn == 0 && len(p) >= 2 && len(p) >= fullHeaderLen(p[1]) {
			// Fast path: the whole header is in p (nearly always); parse it where it lies.
			h = p[:fullHeaderLen(p[1])]
			n = len(h)
		} else {
			// Slow path: gather the header across reads, 2 bytes first to learn its length.
			for {
				need := 2
				if f.hn >= 2 {
					need = fullHeaderLen(f.hdr[1])
				}
				if f.hn == need {
					break
				}
				k := copy(f.hdr[f.hn:need], p[n:])
				f.hn += k
				n += k
				if f.hn < need {
					return n, wsMore, nil
				}
			}
			h = f.hdr[:f.hn]
			f.hn = 0
		}
		if ev := f.header(h); ev != wsChunk {
			return n, ev, nil
		}
		if f.remain == 0 {
			f.inPayload = false
			return n, wsFrameEnd, p[n:n]
		}
		if n == len(p) {
			return n, wsMore, nil
		}
	}
	k := len(p) - n
	if uint64(k) > f.remain {
		k = int(f.remain)
	}
	chunk := p[n : n+k]
	if f.masked {
		xorMask(chunk, chunk, f.key, f.pos)
	}
	f.pos += k
	f.remain -= uint64(k)
	n += k
	if f.remain == 0 {
		f.inPayload = false
		return n, wsFrameEnd, chunk
	}
	return n, wsChunk, chunk
}

// fullHeaderLen is a header's length given its second byte.
func fullHeaderLen(b1 byte) int {
	h := 2
	switch b1 & 0x7F {
	case 126:
		h += 2
	case 127:
		h += 8
	}
	if b1&0x80 != 0 {
		h += 4
	}
	return h
}

// header decodes a complete header; wsChunk means "valid, payload follows".
func (f *frameParser) header(h []byte) wsEvent {
	b0, b1 := h[0], h[1]
	f.fin = b0&0x80 != 0
	f.op = b0 & 0x0F
	f.masked = b1&0x80 != 0
	f.pos = 0
	if b0&0x70 != 0 {
		return f.fail("reserved bits set without a negotiated extension")
	}
	switch f.op {
	case opContinuation, opText, opBinary:
	case opClose, opPing, opPong:
		if !f.fin {
			return f.fail("fragmented control frame")
		}
	default:
		return f.fail("unknown opcode")
	}
	i := 2
	switch l := b1 & 0x7F; l {
	case 126:
		f.remain = uint64(binary.BigEndian.Uint16(h[2:]))
		i = 4
	case 127:
		f.remain = binary.BigEndian.Uint64(h[2:])
		i = 10
		if f.remain>>63 != 0 {
			return f.fail("64-bit length with the most significant bit set")
		}
	default:
		f.remain = uint64(l)
	}
	if f.op >= opClose && f.remain > maxControlLen {
		return f.fail("control frame longer than 125 bytes")
	}
	if f.maxPayload > 0 && f.remain > f.maxPayload {
		return f.fail("frame larger than the size limit")
	}
	if f.masked {
		if !f.allowMasked {
			return f.fail("masked frame from the server")
		}
		f.key = binary.LittleEndian.Uint32(h[i:])
	}
	f.inPayload = true
	return wsChunk
}

func (f *frameParser) fail(why string) wsEvent {
	f.why = why
	return wsProtocol
}

// closePayload renders a close frame's body: the status code, big-endian (§5.5.1).
func closePayload(code uint16) []byte {
	return binary.BigEndian.AppendUint16(nil, code)
}
