// ws_conn.cc — see ws_conn.h. Frames are parsed by ws_reader.h; this file decides what each one
// means for the connection: an event for the embedder, an echo, a pong, the close handshake.
#include "ws_conn.h"

#include <cstring>

#include "loop.h"
#include "ws_frame.h"
#include "ws_handshake.h"

namespace br {
namespace {

constexpr size_t kMaxReason = 123;  // a close frame's payload is at most 125 bytes (RFC 6455 5.5)

// Hands an event to the embedder in this step's batch; the connection's output waits for the
// batch's answers (in_batch), so everything one read produced leaves in one send.
void ws_event(br_loop *l, Conn *c, uint32_t kind, uint32_t code, const void *p, size_t n) {
  br_ws_event &e = l->ws_events.emplace_back();
  e.conn = c->id;
  e.route = l->app->targets[c->ws.target].route;
  e.kind = kind;
  e.code = code;
  e.reserved = 0;
  e.data = br_str{static_cast<const char *>(p), n};
  l->ws_conn.push_back(c);
  c->in_batch++;
}

// The embedder's CLOSE, once per OPEN (echo routes have neither).
void report_close(br_loop *l, Conn *c, uint16_t code, const void *reason, size_t n) {
  if (c->ws.kind != kWsEvents || c->ws.reported) return;
  c->ws.reported = true;
  ws_event(l, c, BR_WS_CLOSE, code, reason, n);
}

// Queues one unfragmented server frame whose payload is a then b (corked with the rest).
void ws_frame(Conn *c, uint8_t opcode, const void *a, size_t an, const void *b = nullptr, size_t bn = 0) {
  size_t n = an + bn;
  auto *q = reinterpret_cast<uint8_t *>(c->out.inline_space(10 + n));
  size_t h = ws::write_head(q, opcode, n);
  if (an) memcpy(q + h, a, an);
  if (bn) memcpy(q + h + an, b, bn);
  c->out.trim(10 - h);
}

// Queues our close frame (no payload for kNoStatus); from now on only the answer is read.
void ws_send_close(br_loop *l, Conn *c, uint16_t code, const void *reason, size_t n) {
  if (code == ws::kNoStatus) {
    ws_frame(c, ws::kClose, nullptr, 0);
  } else {
    uint8_t cb[2] = {uint8_t(code >> 8), uint8_t(code)};
    ws_frame(c, ws::kClose, cb, 2, reason, n > kMaxReason ? kMaxReason : n);
  }
  c->ws.sent_close = true;
  c->ws.code = code;
  mark_dirty(l, c);
}

}  // namespace

void ws_upgrade(br_loop *l, Conn *c, const Head &h, br_str body, uint32_t t, uint8_t req) {
  const Target &target = l->app->targets[t];
  ws::Handshake hs;
  // The switch happens at once, so nothing may be owed before it (no pipelined upgrade).
  int v = h.method_id != BR_METHOD_GET || h.http10 || (req & kReqClose) || body.n || h.chunked ||
                  c->http.slots.count || c->in_batch
              ? ws::kBadRequest
              : ws::check(reinterpret_cast<br_header *>(l->hdrs.data) + l->n_hdrs, h.n_headers, &hs);
  if (v) return fail(l, c, v);
  ws::write_101(c->out.inline_space(ws::k101Len), hs.key, hs.key_len);
  c->ws.kind = target.ws;
  c->ws.target = t;
  c->ws.read = ws::ReadState{};
  // The head, for the embedder's Open: a valid upgrade has no body, so it ends where parsing did.
  if (c->ws.kind == kWsEvents) ws_event(l, c, BR_WS_OPEN, 0, c->in.data + c->parsed - h.head_len, h.head_len);
  mark_dirty(l, c);
}

void ws_fail(br_loop *l, Conn *c, uint16_t code) {
  if (!c->ws.sent_close) ws_send_close(l, c, code, nullptr, 0);
  c->close_after = true;
  report_close(l, c, code, nullptr, 0);
  set_reading(l, c, false);
  mark_dirty(l, c);
}

void ws_process(br_loop *l, Conn *c) {
  if (c->dead || c->close_after || c->in.len - c->parsed <= c->ws.read.have) return;
  if (c->out.bytes() >= l->app->cfg.send_buffer) {
    set_reading(l, c, false);  // backpressure: resumes when the socket took the output
    return;
  }
  const Target &t = l->app->targets[c->ws.target];
  bool any = false;  // only frames read make output: no flush loop over an incomplete frame
  auto sink = [l, c, &any](ws::EventKind k, uint8_t op, const uint8_t *p, size_t n, uint16_t code) {
    any = true;
    switch (k) {
      case ws::kEvMessage:
        if (c->ws.sent_close) return;  // after our close only its answer matters
        if (c->ws.kind == kWsEcho) ws_frame(c, op, p, n);
        else ws_event(l, c, BR_WS_MESSAGE, op, p, n);
        return;
      case ws::kEvPing:
        if (!c->ws.sent_close) ws_frame(c, ws::kPong, p, n);
        return;
      case ws::kEvPong:
        return;
      case ws::kEvClose:
        if (!c->ws.sent_close) ws_send_close(l, c, code, nullptr, 0);  // echo the code
        c->close_after = true;
        report_close(l, c, code, p, n);
        return;
    }
  };
  auto *buf = reinterpret_cast<uint8_t *>(c->in.data + c->parsed);
  ws::ReadResult r = ws::read_frames(buf, c->in.len - c->parsed, c->ws.read, t.ws_max, sink);
  c->in.len = c->parsed + r.len;
  c->parsed += r.consumed;
  c->need = r.need;
  if (r.error) ws_fail(l, c, r.error);
  else if (r.closed) set_reading(l, c, false);
  if (any) mark_dirty(l, c);
}

// The embedder learns what the socket did not take when that changed and either figure is
// non-zero, or when a send asked for it; with it, the bytes of sends applied since the last
// report, which the embedder counted as pending. A client keeping up costs no event until the
// embedder's pending count grows enough for it to ask; one falling behind reports its backlog
// on every flush, and a last 0 once it caught up.
void ws_report_backlog(br_loop *l, Conn *c) {
  size_t b = c->out.bytes();
  uint32_t now = b > UINT32_MAX ? UINT32_MAX : uint32_t(b);
  if (now == c->ws.buffered && !c->ws.report_due) return;
  c->ws.buffered = now;
  ws_event(l, c, BR_WS_BUFFERED, now, nullptr, c->ws.applied);
  c->ws.applied = 0;
  c->ws.report_due = false;
}

void ws_apply_send(br_loop *l, uint64_t id, uint32_t op, uint32_t code, const void *p, size_t n) {
  Conn *c = lookup(l, id);
  if (!c || !c->ws.kind || c->ws.sent_close || c->close_after) return;
  if (op & BR_WS_REPORT) {
    op &= ~uint32_t(BR_WS_REPORT);
    c->ws.report_due = true;
  }
  if (op == BR_WS_OP_CLOSE) {
    ws_send_close(l, c, ws::valid_close_code(code) ? uint16_t(code) : uint16_t(ws::kNormal), p, n);
    return;
  }
  // A client that stops reading cannot grow our memory without bound: past the send buffer
  // plus one maximal message, it is dropped (the embedder gets CLOSE 1006).
  if (c->out.bytes() > l->app->cfg.send_buffer + l->app->targets[c->ws.target].ws_max) return destroy(l, c);
  ws_frame(c, op == BR_WS_TEXT ? ws::kText : ws::kBinary, p, n);
  c->ws.applied += n;
  mark_dirty(l, c);
}

void ws_going_away(br_loop *l, Conn *c) {
  if (!c->ws.sent_close) ws_send_close(l, c, ws::kGoingAway, nullptr, 0);
}

void ws_closed(br_loop *l, Conn *c) { report_close(l, c, c->ws.code ? c->ws.code : uint16_t(ws::kAbnormal), nullptr, 0); }

}  // namespace br
