package binding

/*
#include "bindrace.h"
*/
import "C"

import "unsafe"

// Body is an immutable response body copied once into native memory and shared by every
// response that sends it (Response.SendBody, App.StaticBody): no per-response copy, and a
// slow reader holds only a reference.
type Body struct {
	c *C.br_body
	n int
}

// NewBody copies data into native memory.
func NewBody(data []byte) *Body {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	return &Body{c: C.br_body_new(p, C.size_t(len(data))), n: len(data)}
}

// NewBodyFunc makes an n-byte body that fill writes straight into native memory, so a large
// generated body is never held twice (once in Go, once in C).
func NewBodyFunc(n int, fill func(dst []byte)) *Body {
	b := &Body{c: C.br_body_new(nil, C.size_t(n)), n: n}
	if n > 0 {
		fill(unsafe.Slice((*byte)(C.br_body_data(b.c)), n))
	}
	return b
}

// Len is the body's length.
func (b *Body) Len() int { return b.n }

// Release drops the Go reference; responses still sending it keep it alive. Do not use b after.
func (b *Body) Release() {
	if b.c != nil {
		C.br_body_release(b.c)
		b.c = nil
	}
}
