package engine

import "bytes"

// Small parsers for the few header fields and lines that decide framing. All work in place
// on the receive buffer and allocate nothing.

// chunkSize parses "HEX[ext]\r" (RFC 9112 §7.1); extensions are allowed and ignored.
func chunkSize(line []byte) (int64, bool) {
	if len(line) < 2 || line[len(line)-1] != '\r' {
		return 0, false
	}
	line = line[:len(line)-1]
	var v int64
	i := 0
	for ; i < len(line); i++ {
		c := line[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			goto rest
		}
		if v = v<<4 | int64(d); v > maxBodyBytes {
			return 0, false
		}
	}
rest:
	if i == 0 {
		return 0, false
	}
	for ; i < len(line) && (line[i] == ' ' || line[i] == '\t'); i++ {
	}
	if i < len(line) && line[i] != ';' {
		return 0, false
	}
	return v, true
}

func parseLength(v []byte) (int64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n = n*10 + int64(c-'0'); n > maxBodyBytes {
			return 0, false
		}
	}
	return n, true
}

// validField checks "name: value" has a non-empty name directly followed by a colon.
func validField(line []byte) bool {
	colon := bytes.IndexByte(line, ':')
	return colon > 0 && line[colon-1] != ' ' && line[colon-1] != '\t'
}

func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold compares ASCII case-insensitively with a lower-case literal, without allocating.
func equalFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// hasToken reports whether a comma-separated header value lists tok (case-insensitive).
func hasToken(v []byte, tok string) bool {
	for len(v) > 0 {
		i := bytes.IndexByte(v, ',')
		var t []byte
		if i < 0 {
			t, v = v, nil
		} else {
			t, v = v[:i], v[i+1:]
		}
		if equalFold(trimOWS(t), tok) {
			return true
		}
	}
	return false
}

// lastTokenIs reports whether the last coding of a comma-separated list is tok.
func lastTokenIs(v []byte, tok string) bool {
	if i := bytes.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return equalFold(trimOWS(v), tok)
}
