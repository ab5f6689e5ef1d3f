package binding

import "unsafe"

// headerLines remembers, per loop, the header lines that in-handler answers wrote at each
// position: handlers set the same headers in the same order answer after answer, and a name and
// value equal to the ones remembered at their position were checked then (token, control bytes,
// reserved names), so the line is copied whole. The comparison is of content, against the
// loop's own copy: a string whose bytes a caller changed (unsafe.String over a reused buffer)
// can never pass unchecked. On ping this is 190 instructions of checks a response.
type headerLines [rememberedHeaders]headerLine

// rememberedHeaders bounds the positions remembered: later headers are checked every time.
const rememberedHeaders = 8

type headerLine struct {
	line    []byte // "name: value\r\n", the loop's own bytes
	nameLen int
}

// lookup is the line remembered at position i if its name is k and its value v, else nil.
func (h *headerLines) lookup(i int, k, v string) []byte {
	if i < len(h) && h[i].holds(k, v) {
		return h[i].line
	}
	return nil
}

// holds reports whether e's line is "k: v\r\n". It is not inlined, so that lookup is (within
// the inliner's budget of 80), and it calls nothing for a name or value of 8 bytes or more
// (sameBytes), where comparing them as strings called runtime.memequal twice, about 26
// instructions each on ping's name and value.
//
//go:noinline
func (e *headerLine) holds(k, v string) bool {
	if e.nameLen != len(k) || len(e.line) != len(k)+len(v)+4 {
		return false
	}
	p := unsafe.Pointer(unsafe.SliceData(e.line))
	return sameBytes(p, k) && sameBytes(unsafe.Add(p, len(k)+2), v)
}

// sameBytes reports whether the len(s) bytes at p are s's. From 8 bytes on it compares eight
// at a time, the last word overlapping the one before it, so every load is within the len(s)
// bytes of either side; shorter, it compares them as strings. Small enough to be inlined.
func sameBytes(p unsafe.Pointer, s string) bool {
	q, n := unsafe.Pointer(unsafe.StringData(s)), len(s)
	if n < 8 {
		for i := 0; i < n; i++ {
			if *(*byte)(unsafe.Add(p, i)) != *(*byte)(unsafe.Add(q, i)) {
				return false
			}
		}
		return true
	}
	for ; n > 8; n -= 8 {
		if *(*uint64)(p) != *(*uint64)(q) {
			return false
		}
		p, q = unsafe.Add(p, 8), unsafe.Add(q, 8)
	}
	return *(*uint64)(unsafe.Add(p, n-8)) == *(*uint64)(unsafe.Add(q, n-8))
}

// remember keeps a copy of line, checked, whose name is its first nameLen bytes, at position i.
func (h *headerLines) remember(i, nameLen int, line []byte) {
	if i < len(h) {
		h[i].line = append(h[i].line[:0], line...)
		h[i].nameLen = nameLen
	}
}
