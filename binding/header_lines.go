package binding

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
	if i >= len(h) {
		return nil
	}
	e := &h[i]
	if e.nameLen != len(k) || len(e.line) != len(k)+len(v)+4 ||
		string(e.line[:len(k)]) != k || string(e.line[len(k)+2:len(e.line)-2]) != v {
		return nil
	}
	return e.line
}

// remember keeps a copy of line, checked, whose name is its first nameLen bytes, at position i.
func (h *headerLines) remember(i, nameLen int, line []byte) {
	if i < len(h) {
		h[i].line = append(h[i].line[:0], line...)
		h[i].nameLen = nameLen
	}
}
