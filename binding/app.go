// Package binding is a Go HTTP/1.1 server on the bindrace native core (C++, epoll, cgo).
//
// Handlers are plain Go functions, but the I/O, parsing, routing and response assembly run in
// C++. Each loop thread is driven by one goroutine that makes one cgo call per iteration and
// gets back every request that iteration read (ten per call with pipelining 10); there is no
// C-to-Go callback per request. Routes answered entirely in C++ (Static, StaticBody) never
// enter Go at all.
//
//	app := binding.New(binding.Config{})
//	app.Get("/", func(w *binding.Response, r *binding.Request) { w.WriteString("hi") })
//	app.Get("/id/:id", func(w *binding.Response, r *binding.Request) {
//		w.Header("x-powered-by", "benchmark")
//		w.Write(r.Param("id"))
//	})
//	err := app.Listen("127.0.0.1:3000", 2)
//	...
//	app.Shutdown(ctx)
//
// Request data ([]byte views from Path, Param, Header, Body...) point into the native receive
// buffer and are valid only until the handler returns; copy what you keep. Responses are
// buffered (Write never blocks) unless they stream (Stream) or send a shared Body (SendBody).
package binding

/*
#cgo CPPFLAGS: -I${SRCDIR}/../native/include
#include <stdlib.h>
#include "bindrace.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Config holds the server's limits; zero fields take the defaults given beside them.
type Config struct {
	MaxURI         int           // request-target bytes, else 414 (8 KiB)
	MaxHeaderBytes int           // header section bytes, else 431 (16 KiB)
	MaxHeaders     int           // header fields, else 431 (64)
	MaxBody        int64         // request body bytes, else 413 (1 MiB)
	HeaderTimeout  time.Duration // a started request must be complete within (10 s)
	IdleTimeout    time.Duration // keep-alive idle and send-progress timeout (60 s)
	// MaxConns bounds open connections over all threads (10000). Past it a new connection gets
	// a best-effort "503 Service Unavailable" with Connection: close and is closed at once.
	MaxConns   int
	SendBuffer int // per-connection unsent bytes before backpressure (256 KiB)
	// OwnProcessor gives each loop a Go processor (P) of its own that it keeps while it waits
	// in C, with yields driven by time (procs.go). The default raw wait (wait.go) keeps the
	// loop's P without a spare one and with yields counted in batches, and costs less (ping at
	// pipelining 1, one client: 3.1 system calls and 3,740 instructions a response, against 3.7
	// and 4,060); the option stays for comparison (target binding-ownp, docs/scheduler.md).
	OwnProcessor bool
	// CgoWait makes an idle loop wait inside its cgo step every time, as the binding did before
	// the raw wait (wait.go): on one CPU the runtime then hands the loop's processor to other
	// goroutines at once, at the cost of a hand-off on every wake-up (ping at pipelining 1, one
	// client: 6,300 instructions a response instead of 3,850). For a process whose other
	// goroutines must never wait the raw wait's 2 ms for the one processor.
	CgoWait bool
}

// Handler serves one request. w and r are reused after it returns (see Response.Detach).
type Handler func(w *Response, r *Request)

type route struct {
	h      Handler
	params []string
}

// App is a set of routes served by one or more native event loops.
//
//methods:many the binding's public API: a method per HTTP method to route, as uWS's App has
type App struct {
	c      *C.br_app
	routes []route
	loops  []*loop
	// WebSocket routes by the id given to the core.
	wsRoutes []*wsRoute
	port     int
	mu       sync.Mutex
	state    int  // 0 routing, 1 listening, 2 shut down
	own      bool // Config.OwnProcessor
	cgoWait  bool // Config.CgoWait
	// Detached responses not yet ended and streams not yet closed: work other goroutines owe
	// the loops. While there is any, an idle loop waits in Go's netpoller (see loop.next).
	owed atomic.Int64
}

// Errors returned by the binding.
var (
	ErrBadRoute        = errors.New("binding: invalid method or route pattern")
	ErrRouteTaken      = errors.New("binding: route already registered")
	ErrStarted         = errors.New("binding: routes must be added before Listen")
	ErrInvalidHeader   = errors.New("binding: invalid header name or value (CR, LF or control byte)")
	ErrReservedHeader  = errors.New("binding: header is set by the server")
	ErrResponseStarted = errors.New("binding: response body already set")
	ErrFinished        = errors.New("binding: response already finished")
	ErrClosed          = errors.New("binding: connection closed")
)

// New creates an App with the given limits.
func New(cfg Config) *App {
	var c C.br_config
	c.max_uri = C.uint32_t(cfg.MaxURI)
	c.max_header_bytes = C.uint32_t(cfg.MaxHeaderBytes)
	c.max_headers = C.uint32_t(cfg.MaxHeaders)
	c.max_body = C.uint64_t(cfg.MaxBody)
	c.header_timeout_ms = C.uint32_t(cfg.HeaderTimeout / time.Millisecond)
	c.idle_timeout_ms = C.uint32_t(cfg.IdleTimeout / time.Millisecond)
	c.max_conns = C.uint32_t(cfg.MaxConns)
	c.send_buffer = C.uint32_t(cfg.SendBuffer)
	return &App{c: C.br_app_new(&c), own: cfg.OwnProcessor, cgoWait: cfg.CgoWait}
}

func routeErr(rc C.int) error {
	switch rc {
	case 0:
		return nil
	case -2:
		return ErrRouteTaken
	}
	return ErrBadRoute
}

// Handle routes method ("*" for any) and pattern to h. Patterns: static segments, ":name"
// parameters, a trailing "*". Exact static paths win over parameters, parameters over "*".
func (a *App) Handle(method, pattern string, h Handler) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != 0 {
		return ErrStarted
	}
	var params []string
	for _, seg := range splitPath(pattern) {
		if len(seg) > 1 && seg[0] == ':' {
			params = append(params, seg[1:])
		}
	}
	cm, cp := C.CString(method), C.CString(pattern)
	defer C.free(unsafe.Pointer(cm))
	defer C.free(unsafe.Pointer(cp))
	if err := routeErr(C.br_app_route(a.c, cm, cp, C.uint32_t(len(a.routes)))); err != nil {
		return fmt.Errorf("%w: %s %s", err, method, pattern)
	}
	a.routes = append(a.routes, route{h: h, params: params})
	return nil
}

func splitPath(p string) []string {
	var segs []string
	start := 1
	for i := 1; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			segs = append(segs, p[start:i])
			start = i + 1
		}
	}
	return segs
}

func (a *App) must(err error) {
	if err != nil {
		panic(err)
	}
}

// Get, Post, Put, Delete, Patch, Head, Options and Any register h like Handle and panic on an
// invalid or duplicate route (a programming error, as with net/http's ServeMux).
func (a *App) Get(pattern string, h Handler)     { a.must(a.Handle("GET", pattern, h)) }
func (a *App) Post(pattern string, h Handler)    { a.must(a.Handle("POST", pattern, h)) }
func (a *App) Put(pattern string, h Handler)     { a.must(a.Handle("PUT", pattern, h)) }
func (a *App) Delete(pattern string, h Handler)  { a.must(a.Handle("DELETE", pattern, h)) }
func (a *App) Patch(pattern string, h Handler)   { a.must(a.Handle("PATCH", pattern, h)) }
func (a *App) Head(pattern string, h Handler)    { a.must(a.Handle("HEAD", pattern, h)) }
func (a *App) Options(pattern string, h Handler) { a.must(a.Handle("OPTIONS", pattern, h)) }
func (a *App) Any(pattern string, h Handler)     { a.must(a.Handle("*", pattern, h)) }

// Static routes method and pattern to a fixed response answered entirely in C++.
func (a *App) Static(method, pattern string, status int, contentType string, body []byte) error {
	return a.staticRoute(method, pattern, contentType, func(cm, cp, ct *C.char) C.int {
		var ptr unsafe.Pointer
		if len(body) > 0 {
			ptr = unsafe.Pointer(&body[0])
		}
		return C.br_app_static(a.c, cm, cp, C.uint32_t(status), ct, ptr, C.size_t(len(body)))
	})
}

// StaticBody routes method and pattern to a fixed response whose body is sent zero-copy
// from the shared Body, entirely in C++.
func (a *App) StaticBody(method, pattern string, status int, contentType string, body *Body) error {
	return a.staticRoute(method, pattern, contentType, func(cm, cp, ct *C.char) C.int {
		return C.br_app_static_body(a.c, cm, cp, C.uint32_t(status), ct, body.c)
	})
}

// staticRoute registers a C++-only route through add, with the strings as C strings.
func (a *App) staticRoute(method, pattern, contentType string, add func(cm, cp, ct *C.char) C.int) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != 0 {
		return ErrStarted
	}
	cm, cp, ct := C.CString(method), C.CString(pattern), C.CString(contentType)
	defer C.free(unsafe.Pointer(cm))
	defer C.free(unsafe.Pointer(cp))
	defer C.free(unsafe.Pointer(ct))
	return routeErr(add(cm, cp, ct))
}

// Listen starts threads event loops (at least one) on addr ("host:port"; port 0 picks one),
// each with its own SO_REUSEPORT listener, and returns once they accept connections. With
// Config.OwnProcessor, GOMAXPROCS is raised by one per loop while they run (procs.go says why);
// Shutdown lowers it again.
func (a *App) Listen(addr string, threads int) error {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return fmt.Errorf("binding: bad port in %q", addr)
	}
	if threads < 1 {
		threads = 1
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != 0 {
		return ErrStarted
	}
	ch := C.CString(host)
	defer C.free(unsafe.Pointer(ch))
	for i := 0; i < threads; i++ {
		l, err := openLoop(a, ch, port)
		if err != nil {
			for _, l := range a.loops {
				l.free()
			}
			a.loops = nil
			return fmt.Errorf("binding: listen %s: %w", addr, err)
		}
		port = int(C.br_loop_port(l.c)) // the others share the first loop's port
		a.loops = append(a.loops, l)
	}
	a.state = 1
	a.port = port
	if a.own {
		addLoopProcs(len(a.loops))
	}
	for _, l := range a.loops {
		go l.run()
	}
	return nil
}

// Port is the port the app listens on (0 before Listen).
func (a *App) Port() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.port
}

// Shutdown stops accepting, answers every request already read (including detached ones),
// flushes and closes every connection. When ctx ends first, connections are closed at once
// and ctx's error is returned. It also writes an instrumented build's profile.
func (a *App) Shutdown(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state == 2 {
		return nil
	}
	for _, l := range a.loops {
		C.br_loop_stop(l.c, 0)
	}
	var err error
	for _, l := range a.loops {
		select {
		case <-l.done:
		case <-ctx.Done():
			err = ctx.Err()
			for _, l := range a.loops {
				C.br_loop_stop(l.c, 1)
			}
			<-l.done
		}
	}
	for _, l := range a.loops {
		l.free()
	}
	if a.own {
		addLoopProcs(-len(a.loops))
	}
	a.state = 2
	C.br_app_free(a.c)
	return err
}
