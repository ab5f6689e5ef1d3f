package binding

/*
#include <stdlib.h>
#include "bindrace.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// WSHandler holds a WebSocket route's callbacks; any may be nil. They run on the loop's
// goroutine, one connection's events in order: Open once, then Message for every message, then
// Close exactly once (code 1006 when the connection just went away, 1005 when the client's
// close frame carried no code). msg and reason are views into native memory, valid only until
// the callback returns: copy what you keep. Drain runs after Send refused a message with
// ErrBackpressure, once BufferedAmount fell under half the route's MaxBackpressure: a producer
// that stopped there resumes.
type WSHandler struct {
	Open    func(ws *WS)
	Message func(ws *WS, msg []byte, binary bool)
	Close   func(ws *WS, code int, reason []byte)
	Drain   func(ws *WS)
}

// WSConfig holds a WebSocket route's limits; zero fields take the defaults beside them.
type WSConfig struct {
	MaxMessage  int64         // bytes per message (fragments together), else close 1009 (16 MiB)
	IdleTimeout time.Duration // no traffic for this long closes the connection (120 s)
	// Send refuses a message with ErrBackpressure while BufferedAmount is at least this (1 MiB).
	// < 0: no such limit (and no Drain); a client that stops reading is then dropped (Close
	// 1006) once its backlog passes the app's SendBuffer plus MaxMessage.
	MaxBackpressure int64
}

const (
	defaultMaxBackpressure = 1 << 20
	// Without a limit, pending bytes still need settling now and then, or BufferedAmount drifts.
	unlimitedReportEvery = 1 << 20
)

// WS is one WebSocket connection. Send and Close may be called from any goroutine: inside a
// callback they write into the loop's batch (no allocation, sent with everything else the read
// produced), elsewhere they are posted to the loop.
type WS struct {
	l      *loop
	id     uint64
	rt     *wsRoute
	user   any
	head   string // the upgrade request's head: request line, header lines
	closed atomic.Bool
	// The backlog the core last reported (BR_WS_BUFFERED), and the payload bytes Send queued
	// that no report has accounted for yet. Sends ask for a report (BR_WS_REPORT) once these
	// reach reportAt, so a client that keeps up costs no event per message.
	backlog, pending atomic.Int64
	refused          atomic.Bool // Send returned ErrBackpressure; Drain is owed
}

type wsRoute struct {
	h                         WSHandler
	maxBackpressure, reportAt int64
}

// Errors of WebSocket calls.
var (
	ErrCloseCode    = errors.New("binding: invalid WebSocket close code")
	ErrReason       = errors.New("binding: WebSocket close reason over 123 bytes")
	ErrBackpressure = errors.New("binding: WebSocket backlog at MaxBackpressure: message not sent")
)

func wsConfig(cfg WSConfig, flags C.uint32_t) C.br_ws_config {
	var c C.br_ws_config
	c.max_message = C.uint64_t(max(cfg.MaxMessage, 0))
	c.idle_timeout_ms = C.uint32_t(cfg.IdleTimeout / time.Millisecond)
	c.flags = flags
	return c
}

// WebSocket routes GET pattern to WebSocket upgrades served by h. A bad handshake gets 400, a
// wrong Sec-WebSocket-Version 426; pings are answered and close frames echoed natively.
func (a *App) WebSocket(pattern string, h WSHandler, cfg WSConfig) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != 0 {
		return ErrStarted
	}
	c := wsConfig(cfg, 0)
	cp := C.CString(pattern)
	defer C.free(unsafe.Pointer(cp))
	if err := routeErr(C.br_app_ws(a.c, cp, C.uint32_t(len(a.wsRoutes)), &c)); err != nil {
		return fmt.Errorf("%w: WebSocket %s", err, pattern)
	}
	rt := &wsRoute{h: h, maxBackpressure: cfg.MaxBackpressure, reportAt: unlimitedReportEvery}
	if rt.maxBackpressure == 0 {
		rt.maxBackpressure = defaultMaxBackpressure
	}
	if rt.maxBackpressure > 0 {
		rt.reportAt = rt.maxBackpressure / 2
	}
	a.wsRoutes = append(a.wsRoutes, rt)
	return nil
}

// StaticWebSocketEcho routes GET pattern to WebSocket upgrades whose messages are echoed back
// (same opcode) entirely in C++: no Go code runs per message. cfg is optional.
func (a *App) StaticWebSocketEcho(pattern string, cfg ...WSConfig) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.state != 0 {
		return ErrStarted
	}
	var wc WSConfig
	if len(cfg) > 0 {
		wc = cfg[0]
	}
	c := wsConfig(wc, C.BR_WS_ECHO)
	cp := C.CString(pattern)
	defer C.free(unsafe.Pointer(cp))
	if err := routeErr(C.br_app_ws(a.c, cp, 0, &c)); err != nil {
		return fmt.Errorf("%w: WebSocket %s", err, pattern)
	}
	return nil
}

// The upgrade request stays readable for the socket's life (one copy of its head per
// connection), so Open can authenticate it and close a socket it refuses.

// Path is the upgrade request's path, as sent (not percent-decoded).
func (ws *WS) Path() string {
	p, _, _ := strings.Cut(ws.target(), "?")
	return p
}

// Query is the upgrade request's first value of the query parameter name (nil if absent), as
// sent; the slice is the caller's.
func (ws *WS) Query(name string) []byte {
	_, q, _ := strings.Cut(ws.target(), "?")
	return queryValue([]byte(q), name)
}

// Header is the upgrade request's first value of the header name (any case), "" if absent.
func (ws *WS) Header(name string) string {
	_, rest, _ := strings.Cut(strings.TrimLeft(ws.head, "\r\n"), "\n") // past the request line
	for rest != "" {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		k, v, ok := strings.Cut(strings.TrimSuffix(line, "\r"), ":")
		if ok && len(k) == len(name) && equalFold(k, name) {
			return strings.Trim(v, " \t")
		}
	}
	return ""
}

// target is the request line's middle part.
func (ws *WS) target() string {
	line, _, _ := strings.Cut(strings.TrimLeft(ws.head, "\r\n"), "\r\n")
	_, t, _ := strings.Cut(line, " ")
	t, _, _ = strings.Cut(t, " ")
	return t
}

// SetUserData attaches v to the connection (for the callbacks' use); UserData returns it.
func (ws *WS) SetUserData(v any) { ws.user = v }

// UserData is what SetUserData attached, or nil.
func (ws *WS) UserData() any { return ws.user }

// Send sends msg as one binary or text message (the caller vouches that text is UTF-8). msg is
// copied before Send returns. It fails with ErrClosed once the connection closed, and with
// ErrBackpressure, sending nothing, while BufferedAmount is at the route's MaxBackpressure.
func (ws *WS) Send(msg []byte, binary bool) error {
	op := uint16(C.BR_WS_TEXT)
	if binary {
		op = C.BR_WS_BINARY
	}
	if limit := ws.rt.maxBackpressure; limit > 0 && ws.BufferedAmount() >= limit {
		// Owe a Drain first, then look again: a report that lowered the figure in between either
		// sees the debt or is seen here, so a refused producer is never left without its Drain.
		ws.refused.Store(true)
		if ws.BufferedAmount() >= limit {
			return ErrBackpressure
		}
	}
	if ws.BufferedAmount()+int64(len(msg)) >= ws.rt.reportAt {
		op |= C.BR_WS_REPORT
	}
	ws.pending.Add(int64(len(msg)))
	return ws.put(op, 0, msg)
}

// BufferedAmount is the payload bytes sent to this client that its socket has not taken yet:
// the backlog the loop last reported plus the sends it has not reported on. It errs high,
// never low (frame headers aside), by what the loop wrote since its last report.
func (ws *WS) BufferedAmount() int64 { return ws.backlog.Load() + ws.pending.Load() }

// Close starts the closing handshake with code (1000-1003, 1007-1014 or 3000-4999) and a
// reason of at most 123 bytes; Close fires once the client answered or the connection dropped.
func (ws *WS) Close(code int, reason string) error {
	if !(code >= 1000 && code <= 1003 || code >= 1007 && code <= 1014 || code >= 3000 && code <= 4999) {
		return ErrCloseCode
	}
	if len(reason) > 123 {
		return ErrReason
	}
	return ws.put(C.BR_WS_OP_CLOSE, uint16(code), unsafe.Slice(unsafe.StringData(reason), len(reason)))
}

const wsOutSize = uint64(C.sizeof_br_ws_out)

// put writes the send into the batch when the loop is dispatching (its callbacks, or another
// goroutine racing them: the loop waits for wmu before stepping) and posts it otherwise, or when
// earlier posted sends are still waiting (the batch would overtake them).
func (ws *WS) put(op, code uint16, p []byte) error {
	if ws.closed.Load() {
		return ErrClosed
	}
	l := ws.l
	l.wmu.Lock()
	if l.dispatching && l.useArena {
		need := wsOutSize + (uint64(len(p))+7)&^7
		a := l.arena(2, l.wsUsed, need)
		o := (*C.br_ws_out)(unsafe.Pointer(&a[l.wsUsed]))
		o.conn = C.uint64_t(ws.id)
		o.len = C.uint32_t(len(p))
		o.opcode = C.uint16_t(op)
		o.code = C.uint16_t(code)
		copy(a[l.wsUsed+wsOutSize:], p)
		l.wsUsed += need
		l.wmu.Unlock()
		return nil
	}
	l.wsPosted++
	l.wmu.Unlock()
	var ptr unsafe.Pointer
	if len(p) > 0 {
		ptr = unsafe.Pointer(&p[0])
	}
	ok := l.locked(func() {
		if op == C.BR_WS_OP_CLOSE {
			C.br_ws_close(l.c, C.uint64_t(ws.id), C.uint32_t(code), ptr, C.size_t(len(p)))
		} else {
			C.br_ws_send(l.c, C.uint64_t(ws.id), C.uint32_t(op), ptr, C.size_t(len(p)))
		}
	})
	if !ok {
		return ErrClosed
	}
	return nil
}

// wsDispatch runs the callbacks for the batch's WebSocket events.
func (l *loop) wsDispatch(evs []C.br_ws_event) {
	for i := range evs {
		e := &evs[i]
		id := uint64(e.conn)
		if e.kind == C.BR_WS_OPEN {
			l.wsOpen(id, e)
			continue
		}
		ws := l.sock(id)
		if ws == nil {
			continue // not an open connection of this loop
		}
		switch e.kind {
		case C.BR_WS_MESSAGE:
			if h := ws.rt.h.Message; h != nil {
				l.wsMessage(h, ws, view(e.data), e.code == C.BR_WS_BINARY)
			}
		case C.BR_WS_BUFFERED:
			ws.pending.Add(-int64(e.data.n))
			ws.backlog.Store(int64(e.code))
			if ws.refused.Load() && ws.BufferedAmount() < ws.rt.maxBackpressure/2 && ws.refused.CompareAndSwap(true, false) {
				if h := ws.rt.h.Drain; h != nil {
					l.wsCall(func() { h(ws) })
				}
			}
		case C.BR_WS_CLOSE:
			ws.closed.Store(true)
			l.socks[int(uint32(id))] = nil
			if h := ws.rt.h.Close; h != nil {
				code, reason := int(e.code), view(e.data)
				l.wsCall(func() { h(ws, code, reason) })
			}
		}
	}
}

// wsOpen keeps a new connection's WS in its slot and calls the route's Open.
func (l *loop) wsOpen(id uint64, e *C.br_ws_event) {
	ws := &WS{l: l, id: id, rt: l.app.wsRoutes[e.route], head: string(view(e.data))}
	idx := int(uint32(id))
	for idx >= len(l.socks) {
		l.socks = append(l.socks, nil)
	}
	l.socks[idx] = ws
	if h := ws.rt.h.Open; h != nil {
		l.wsCall(func() { h(ws) })
	}
}

func (l *loop) sock(id uint64) *WS {
	idx := int(uint32(id))
	if idx >= len(l.socks) {
		return nil
	}
	if ws := l.socks[idx]; ws != nil && ws.id == id {
		return ws
	}
	return nil
}

// wsMessage calls a Message callback; a panic is logged and closes that connection with 1011.
func (l *loop) wsMessage(h func(*WS, []byte, bool), ws *WS, msg []byte, binary bool) {
	defer l.wsRecover(ws)
	h(ws, msg, binary)
}

func (l *loop) wsCall(f func()) {
	defer l.wsRecover(nil)
	f()
}

func (l *loop) wsRecover(ws *WS) {
	if e := recover(); e != nil {
		logPanic(e)
		if ws != nil {
			ws.Close(1011, "")
		}
	}
}
