package binding

import "errors"

// ErrEscape: a '%' not followed by two hex digits.
var ErrEscape = errors.New("binding: malformed percent-escape")

// AppendUnescaped appends src with its %XX escapes decoded to dst and returns the result; with
// query set, '+' decodes to a space too (form encoding, as in query strings). Request views are
// raw so that reading one costs nothing; this is the copy to make when the decoded form is
// wanted, into a buffer the caller reuses (no allocation once dst has room). On a malformed
// escape it returns dst unchanged and ErrEscape.
func AppendUnescaped(dst, src []byte, query bool) ([]byte, error) {
	n := len(dst)
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '%':
			if i+2 >= len(src) || unhex(src[i+1]) < 0 || unhex(src[i+2]) < 0 {
				return dst[:n], ErrEscape
			}
			dst = append(dst, byte(unhex(src[i+1])<<4|unhex(src[i+2])))
			i += 2
		case c == '+' && query:
			dst = append(dst, ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst, nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
