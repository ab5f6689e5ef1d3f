package binding

/*
#include "bindrace.h"
*/
import "C"

import "unsafe"

// Request is one parsed request. Every []byte it returns is a view into native memory, valid
// only until the handler returns (or calls Detach); copy what must outlive that.
type Request struct {
	c  *C.br_request
	rt *route
}

var methodNames = [...]string{"", "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE"}

func view(s C.br_str) []byte {
	if s.n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(s.p)), int(s.n))
}

// Method is the request method (a constant string for the standard methods).
func (r *Request) Method() string {
	if id := int(r.c.method_id); id > 0 && id < len(methodNames) {
		return methodNames[id]
	}
	return string(view(r.c.method))
}

// Path is the request path without the query, as sent (not percent-decoded).
func (r *Request) Path() []byte { return view(r.c.path) }

// RawQuery is everything after '?', as sent.
func (r *Request) RawQuery() []byte { return view(r.c.query) }

// Query is the raw (not percent-decoded) value of the first name=value pair called name;
// AppendUnescaped decodes it into a buffer of the caller's.
func (r *Request) Query(name string) []byte { return queryValue(view(r.c.query), name) }

// queryValue finds name in a raw query: the value of the first "name=value" or bare "name"
// pair (empty for the bare form), or nil when there is none.
func queryValue(q []byte, name string) []byte {
	if name == "" {
		return nil
	}
	for len(q) > 0 {
		end := len(q)
		for i, c := range q {
			if c == '&' {
				end = i
				break
			}
		}
		pair := q[:end]
		if len(pair) >= len(name) && string(pair[:len(name)]) == name {
			if len(pair) == len(name) {
				return pair[len(name):]
			}
			if pair[len(name)] == '=' {
				return pair[len(name)+1:]
			}
		}
		if end == len(q) {
			break
		}
		q = q[end+1:]
	}
	return nil
}

// Param is the value of the route parameter ":name", or nil.
func (r *Request) Param(name string) []byte {
	for i, p := range r.rt.params {
		if p == name {
			return r.ParamIndex(i)
		}
	}
	return nil
}

// ParamIndex is the i-th route parameter value, or nil.
func (r *Request) ParamIndex(i int) []byte {
	if i < 0 || i >= int(r.c.n_params) {
		return nil
	}
	return view(r.c.params[i])
}

func (r *Request) headers() []C.br_header {
	if r.c.n_headers == 0 {
		return nil
	}
	return unsafe.Slice(r.c.headers, int(r.c.n_headers))
}

// Header is the value of the first header called name (ASCII case-insensitive), or nil when
// there is none (an empty value is an empty, non-nil slice).
func (r *Request) Header(name string) []byte {
	for _, h := range r.headers() {
		if int(h.name.n) == len(name) && equalFold(view(h.name), name) {
			if v := view(h.value); v != nil {
				return v
			}
			return []byte{} // present but empty: not nil, which means absent (no allocation)
		}
	}
	return nil
}

// VisitHeaders calls f for every header in order.
func (r *Request) VisitHeaders(f func(name, value []byte)) {
	for _, h := range r.headers() {
		f(view(h.name), view(h.value))
	}
}

// Body is the request body (a decoded chunked body too); nil when there is none.
func (r *Request) Body() []byte { return view(r.c.body) }

// HTTP10 reports an HTTP/1.0 request.
func (r *Request) HTTP10() bool { return r.c.flags&C.BR_REQ_HTTP10 != 0 }

func equalFold[T string | []byte](b T, s string) bool {
	for i := 0; i < len(s); i++ {
		x, y := b[i], s[i]
		if x == y {
			continue
		}
		if lx := x | 0x20; lx != y|0x20 || lx < 'a' || lx > 'z' {
			return false
		}
	}
	return true
}
