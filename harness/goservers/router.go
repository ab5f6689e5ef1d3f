package goservers

import (
	"bytes"
	"strings"
)

// router is the fasthttp target's small hand router (fasthttp has none): exact paths through a
// map per method, ":param" and trailing "*" patterns by a segment walk. Lookups allocate nothing,
// and static hot routes never walk the patterns, so the background routes cost them nothing.
type router[H any] struct {
	static   map[string]map[string]H // method -> path -> handler
	patterns map[string][]pattern[H] // method -> patterns in registration order
}

type pattern[H any] struct {
	segs     []string // "" marks a ":param" segment
	wildcard bool     // trailing "*": matches the rest, including nothing
	h        H
}

// maxParams bounds the ":param" segments a pattern may have, so params live on the stack.
const maxParams = 4

// params are the ":param" values of a match, views into the request path.
type params struct {
	n int
	v [maxParams][]byte
}

func (p *params) get(i int) []byte {
	if i < p.n {
		return p.v[i]
	}
	return nil
}

func newRouter[H any]() *router[H] {
	return &router[H]{static: map[string]map[string]H{}, patterns: map[string][]pattern[H]{}}
}

func (r *router[H]) handle(method, path string, h H) {
	if !strings.ContainsAny(path, ":*") {
		if r.static[method] == nil {
			r.static[method] = map[string]H{}
		}
		r.static[method][path] = h
		return
	}
	p := pattern[H]{h: h}
	rest := strings.TrimPrefix(path, "/")
	if strings.HasSuffix(rest, "*") {
		p.wildcard = true
		rest = strings.TrimSuffix(strings.TrimSuffix(rest, "*"), "/")
	}
	nparams := 0
	if rest != "" {
		for _, s := range strings.Split(rest, "/") {
			if strings.HasPrefix(s, ":") {
				s = ""
				nparams++
			}
			p.segs = append(p.segs, s)
		}
	}
	if nparams > maxParams {
		panic("router: too many params in " + path)
	}
	r.patterns[method] = append(r.patterns[method], p)
}

// lookup finds the handler for method and path, filling ps; ok is false when nothing matches.
func (r *router[H]) lookup(method, path []byte, ps *params) (h H, ok bool) {
	if m := r.static[string(method)]; m != nil {
		if h, ok := m[string(path)]; ok {
			return h, true
		}
	}
	for i := range r.patterns[string(method)] {
		p := &r.patterns[string(method)][i]
		if p.match(path, ps) {
			return p.h, true
		}
	}
	return h, false
}

// match walks path's segments against the pattern without allocating. A wildcard pattern
// matches its prefix followed by nothing or by "/" and anything.
func (p *pattern[H]) match(path []byte, ps *params) bool {
	ps.n = 0
	rest := path
	for _, seg := range p.segs {
		if len(rest) == 0 || rest[0] != '/' {
			return false
		}
		rest = rest[1:]
		end := bytes.IndexByte(rest, '/')
		if end < 0 {
			end = len(rest)
		}
		part := rest[:end]
		if seg == "" {
			if len(part) == 0 {
				return false // ":param" needs a value
			}
			ps.v[ps.n] = part
			ps.n++
		} else if string(part) != seg {
			return false
		}
		rest = rest[end:]
	}
	if p.wildcard {
		return len(rest) == 0 || rest[0] == '/'
	}
	return len(rest) == 0
}
