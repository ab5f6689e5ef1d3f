// loop.cc — the event loop and br_loop_step: apply the embedder's answers, flush, wait, read,
// parse, answer static routes, and hand everything else over as one batch.
#include "loop.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "stream.h"
#include "ws_frame.h"
#include "ws_handshake.h"

using br::Conn;
using br::Op;
using br::Slot;
namespace ws = br::ws;

namespace {

constexpr uint32_t kMaxSlots = 128;      // pipelined answers owed before reading pauses
constexpr size_t kReadRoom = 4096;       // free bytes wanted before a read
constexpr size_t kInitialIn = 16384;
constexpr uint32_t kCloseWaitMs = 2000;  // how long our close frame waits for the client's
constexpr uintptr_t kListenerTag = 1, kWakeTag = 2;

uint64_t mono_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
}

void tick(br_loop *l) {
  l->now_ms = mono_ms();
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  l->date.update(ts.tv_sec);
}

void mark_dirty(br_loop *l, Conn *c) {
  if (c->dirty) return;
  c->dirty = true;
  l->dirty.push_back(c);
}

void update_events(br_loop *l, Conn *c) {
  struct epoll_event ev = {};
  ev.events = (c->reading ? EPOLLIN : 0u) | (c->want_write ? EPOLLOUT : 0u);
  ev.data.ptr = c;
  epoll_ctl(l->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

void set_reading(br_loop *l, Conn *c, bool on) {
  if (c->reading == on) return;
  c->reading = on;
  update_events(l, c);
}

Conn *lookup(br_loop *l, uint64_t id) {
  uint32_t idx = uint32_t(id);
  if (idx >= l->table.size()) return nullptr;
  Conn *c = l->table[idx];
  return c && c->id == id && !c->dead ? c : nullptr;
}

// A stream chunk left the socket (or was dropped): release its backpressure credit.
void chunk_done(br_loop *l, Op *op) {
  if (br_stream *st = op->stream) {
    int64_t left = st->inflight.fetch_sub(int64_t(op->body_len)) - int64_t(op->body_len);
    if (left <= st->limit / 2 && st->want_wake.load() && st->want_wake.exchange(0))
      l->wakes.push_back(st->token);
  }
  br::op_free(op);
}

void kill_stream(br_loop *l, br_stream *st) {
  st->dead.store(1);
  if (st->want_wake.exchange(0)) l->wakes.push_back(st->token);
  br::stream_unref(st);
}

void release_slot(br_loop *l, Slot &s) {
  if (s.op) br::op_free(s.op);
  if (s.later) {
    for (Op *op : *s.later) chunk_done(l, op);
    delete s.later;
  }
  if (s.stream) kill_stream(l, s.stream);
  s = Slot{};
}

void ws_event(br_loop *l, Conn *c, uint32_t kind, uint32_t code, const void *p, size_t n);

void destroy(br_loop *l, Conn *c) {
  if (c->dead) return;
  if (c->ws_kind == br::kWsEvents && !c->ws_reported) {  // every OPEN gets its CLOSE
    c->ws_reported = true;
    ws_event(l, c, BR_WS_CLOSE, c->ws_code ? c->ws_code : ws::kAbnormal, nullptr, 0);
  }
  c->dead = true;
  close(c->fd);  // also leaves the epoll set
  c->out.drop([l](Op *op) { chunk_done(l, op); });
  while (c->slot_count) {
    release_slot(l, c->front());
    c->pop_slot();
  }
  l->app->conns.fetch_sub(1);
  l->live--;
  l->dead.push_back(c);
}

// After a closing answer nothing behind it is sent.
void discard_rest(br_loop *l, Conn *c) {
  c->close_after = true;
  while (c->slot_count > 1) {
    release_slot(l, c->slot_at(c->slot_count - 1));
    c->slot_count--;
  }
}

// While stopping, the last request already read gets "Connection: close".
bool stop_close(br_loop *l, Conn *c) {
  return l->stopping && c->slot_count <= 1 && c->parsed == c->in.len;
}

void answer_static(br_loop *l, Conn *c, const br::StaticResponse *st, uint8_t req) {
  if (c->slot_count == 0) {
    bool close = (req & br::kReqClose) || stop_close(l, c);
    br::write_static(c->out, *st, req, close, l->date);
    if (close) c->close_after = true;
    mark_dirty(l, c);
    return;
  }
  Slot &s = c->push_slot();
  s.state = Slot::kStatic;
  s.st = st;
  s.req = req;
}

void fail(br_loop *l, Conn *c, int status) {
  answer_static(l, c, l->app->error(status), br::kReqClose);
  c->close_after = true;
}

void stream_chunk(br_loop *l, Conn *c, Slot &s, Op *op) {
  br_stream *st = s.stream;
  if (s.req & br::kReqHead) return chunk_done(l, op);
  if (st->content_length >= 0 && st->sent_body + op->body_len > uint64_t(st->content_length)) {
    size_t keep = size_t(uint64_t(st->content_length) - st->sent_body);  // never past the length
    st->inflight.fetch_sub(int64_t(op->body_len - keep));
    op->body_len = keep;
  }
  if (!op->body_len) return chunk_done(l, op);
  st->sent_body += op->body_len;
  bool chunked = st->content_length < 0 && !(s.req & br::kReqHttp10);
  if (chunked) {
    char line[24];
    c->out.append(line, size_t(snprintf(line, sizeof line, "%zx\r\n", op->body_len)));
  }
  c->out.append_chunk(op);
  if (chunked) c->out.append("\r\n", 2);
  mark_dirty(l, c);
}

void end_stream(br_loop *l, Conn *c, Slot &s) {
  br_stream *st = s.stream;
  if (st->content_length < 0 && !(s.req & br::kReqHttp10)) c->out.append("0\r\n\r\n", 5);
  else if (st->content_length < 0 || st->sent_body != uint64_t(st->content_length))
    discard_rest(l, c);  // the body's end is only known by the connection closing
  br::stream_unref(st);
  s.stream = nullptr;
  c->pop_slot();
  mark_dirty(l, c);
}

// Writes the answer for the front slot (the head only for a stream).
void write_answer(br_loop *l, Conn *c, Slot &s, uint32_t status, uint32_t flags, const char *head,
                  size_t hl, const char *body, size_t bl, br_body *shared) {
  if (status == 0) status = 500;
  bool close = (s.req & br::kReqClose) || (flags & BR_RES_CLOSE) || stop_close(l, c);
  if (s.stream) {
    int64_t len = s.stream->content_length;
    if (len < 0) len = (s.req & br::kReqHttp10) ? br::kUntilClose : br::kChunked;
    if (len == br::kUntilClose) close = true;
    br::write_head(c->out, status, head, hl, len, s.req, close, l->date);
  } else if (shared) {
    br::write_head(c->out, status, head, hl, int64_t(shared->len), s.req, close, l->date);
    if (!(s.req & br::kReqHead)) c->out.append_body(shared, 0, shared->len);
  } else {
    br::write_full(c->out, status, head, hl, body, bl, s.req, close, l->date);
  }
  if (close) discard_rest(l, c);
  mark_dirty(l, c);
}

// Writes every answer at the front that is ready, in order.
void drain(br_loop *l, Conn *c) {
  while (c->slot_count && !c->dead) {
    Slot &s = c->front();
    switch (s.state) {
      case Slot::kWaiting:
        return;
      case Slot::kStatic: {
        bool close = (s.req & br::kReqClose) || stop_close(l, c);
        br::write_static(c->out, *s.st, s.req, close, l->date);
        c->pop_slot();
        if (close) discard_rest(l, c);
        mark_dirty(l, c);
        break;
      }
      case Slot::kStored: {
        Op *op = s.op;
        s.op = nullptr;
        write_answer(l, c, s, op->status, op->flags, op->data, op->head_len,
                     op->data + op->head_len, op->body_len, op->body);
        br::op_free(op);
        c->pop_slot();
        break;
      }
      case Slot::kStream:
        if (Op *op = s.op) {
          s.op = nullptr;
          write_answer(l, c, s, op->status, op->flags, op->data, op->head_len, nullptr, 0, nullptr);
          br::op_free(op);
        }
        if (s.later) {
          for (Op *op : *s.later) stream_chunk(l, c, s, op);
          delete s.later;
          s.later = nullptr;
        }
        if (!s.stream_closed) return;
        end_stream(l, c, s);
        break;
    }
  }
}

// The embedder's answer for (c, seq); own, if given, is an op holding head and body.
void respond(br_loop *l, Conn *c, uint32_t seq, uint32_t status, uint32_t flags, const char *head,
             size_t hl, const char *body, size_t bl, br_body *shared, br_stream *st, Op *own) {
  Slot *s = c->find_slot(seq);
  if (!s || s->state != Slot::kWaiting) {
    if (own) br::op_free(own);
    return;
  }
  if (st) {
    st->conn = c->id;
    st->seq = seq;
    if (own) own->stream = nullptr;  // the slot takes the op's reference
    else br::stream_ref(st);
    s->stream = st;
  }
  if (s != &c->front()) {  // an earlier answer is still owed: keep a copy until it is sent
    Op *op = own;
    if (!op) {
      op = br::op_new(Op::kComplete, hl + bl);
      if (hl) memcpy(op->data, head, hl);
      if (bl) memcpy(op->data + hl, body, bl);
      op->head_len = hl;
      op->body_len = bl;
      op->body = shared ? br::body_ref(shared) : nullptr;
    }
    op->status = status;
    op->flags = flags;
    s->op = op;
    s->state = st ? Slot::kStream : Slot::kStored;
    return;
  }
  write_answer(l, c, *s, status, flags, head, hl, body, bl, shared);
  if (own) br::op_free(own);
  if (st) s->state = Slot::kStream;
  else c->pop_slot();
  drain(l, c);
}

// ---- WebSocket ---------------------------------------------------------------------------------

// Hands an event to the embedder in this step's batch; the connection's output waits for the
// batch's answers (in_batch), so everything one read produced leaves in one send.
void ws_event(br_loop *l, Conn *c, uint32_t kind, uint32_t code, const void *p, size_t n) {
  br_ws_event &e = l->ws_events.emplace_back();
  e.conn = c->id;
  e.route = l->app->targets[c->ws_target].route;
  e.kind = kind;
  e.code = code;
  e.reserved = 0;
  e.data = br_str{static_cast<const char *>(p), n};
  l->ws_conn.push_back(c);
  c->in_batch++;
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
    ws_frame(c, ws::kClose, cb, 2, reason, n > 123 ? 123 : n);
  }
  c->ws_sent_close = true;
  c->ws_code = code;
  mark_dirty(l, c);
}

// Fails the connection (RFC 6455 7.1.7): close frame with code, TCP close once it is sent.
void ws_fail(br_loop *l, Conn *c, uint16_t code) {
  if (!c->ws_sent_close) ws_send_close(l, c, code, nullptr, 0);
  c->close_after = true;
  if (c->ws_kind == br::kWsEvents && !c->ws_reported) {
    c->ws_reported = true;
    ws_event(l, c, BR_WS_CLOSE, code, nullptr, 0);
  }
  set_reading(l, c, false);
  mark_dirty(l, c);
}

// Tells the embedder what a WebSocket's socket did not take, when that changed and either figure
// is non-zero, or when a send asked for it; with it, the bytes of sends applied since the last
// report, which the embedder counted as pending. A client keeping up costs no event until the
// embedder's pending count grows enough for it to ask; one falling behind reports its backlog
// on every flush, and a last 0 once it caught up.
void report_backlog(br_loop *l, Conn *c) {
  size_t b = c->out.bytes();
  uint32_t now = b > UINT32_MAX ? UINT32_MAX : uint32_t(b);
  if (now == c->ws_buffered && !c->ws_report_due) return;
  c->ws_buffered = now;
  ws_event(l, c, BR_WS_BUFFERED, now, nullptr, c->ws_applied);
  c->ws_applied = 0;
  c->ws_report_due = false;
}

// An embedder's send (batch record or inbox op) for connection id.
void ws_apply_send(br_loop *l, uint64_t id, uint32_t op, uint32_t code, const void *p, size_t n) {
  Conn *c = lookup(l, id);
  if (!c || !c->ws_kind || c->ws_sent_close || c->close_after) return;
  if (op & BR_WS_REPORT) {
    op &= ~uint32_t(BR_WS_REPORT);
    c->ws_report_due = true;
  }
  if (op == BR_WS_OP_CLOSE) {
    ws_send_close(l, c, ws::valid_close_code(code) ? uint16_t(code) : ws::kNormal, p, n);
    return;
  }
  // A client that stops reading cannot grow our memory without bound: past the send buffer
  // plus one maximal message, it is dropped (the embedder gets CLOSE 1006).
  if (c->out.bytes() > l->app->cfg.send_buffer + l->app->targets[c->ws_target].ws_max) return destroy(l, c);
  ws_frame(c, op == BR_WS_TEXT ? ws::kText : ws::kBinary, p, n);
  c->ws_applied += n;
  mark_dirty(l, c);
}

// Reads every complete frame buffered on an upgraded connection.
void process_ws(br_loop *l, Conn *c) {
  if (c->dead || c->close_after || c->in.len - c->parsed <= c->ws.have) return;
  if (c->out.bytes() >= l->app->cfg.send_buffer) {
    set_reading(l, c, false);  // backpressure: resumes when the socket took the output
    return;
  }
  const br::Target &t = l->app->targets[c->ws_target];
  bool any = false;  // only frames read make output: no flush loop over an incomplete frame
  auto sink = [l, c, &any](ws::EventKind k, uint8_t op, const uint8_t *p, size_t n, uint16_t code) {
    any = true;
    switch (k) {
      case ws::kEvMessage:
        if (c->ws_sent_close) return;  // after our close only its answer matters
        if (c->ws_kind == br::kWsEcho) ws_frame(c, op, p, n);
        else ws_event(l, c, BR_WS_MESSAGE, op, p, n);
        return;
      case ws::kEvPing:
        if (!c->ws_sent_close) ws_frame(c, ws::kPong, p, n);
        return;
      case ws::kEvPong:
        return;
      case ws::kEvClose:
        if (!c->ws_sent_close) ws_send_close(l, c, code, nullptr, 0);  // echo the code
        c->close_after = true;
        if (c->ws_kind == br::kWsEvents && !c->ws_reported) {
          c->ws_reported = true;
          ws_event(l, c, BR_WS_CLOSE, code, p, n);
        }
        return;
    }
  };
  auto *buf = reinterpret_cast<uint8_t *>(c->in.data + c->parsed);
  ws::ReadResult r = ws::read_frames(buf, c->in.len - c->parsed, c->ws, t.ws_max, sink);
  c->in.len = c->parsed + r.len;
  c->parsed += r.consumed;
  c->need = r.need;
  if (r.error) ws_fail(l, c, r.error);
  else if (r.closed) set_reading(l, c, false);
  if (any) mark_dirty(l, c);
}

// A request on a WebSocket route: the 101 and the switch, or a refusal.
void upgrade(br_loop *l, Conn *c, const br::Head &h, br_str body, uint32_t t, uint8_t req) {
  const br::Target &target = l->app->targets[t];
  ws::Handshake hs;
  // The switch happens at once, so nothing may be owed before it (no pipelined upgrade).
  int v = h.method_id != BR_METHOD_GET || h.http10 || (req & br::kReqClose) || body.n || h.chunked ||
                  c->slot_count || c->in_batch
              ? ws::kBadRequest
              : ws::check(reinterpret_cast<br_header *>(l->hdrs.data) + l->n_hdrs, h.n_headers, &hs);
  if (v) return fail(l, c, v);
  ws::write_101(c->out.inline_space(ws::k101Len), hs.key, hs.key_len);
  c->ws_kind = target.ws;
  c->ws_target = t;
  c->ws = ws::ReadState{};
  // The head, for the embedder's Open: a valid upgrade has no body, so it ends where parsing did.
  if (c->ws_kind == br::kWsEvents) ws_event(l, c, BR_WS_OPEN, 0, c->in.data + c->parsed - h.head_len, h.head_len);
  mark_dirty(l, c);
}

void send_continue(br_loop *l, Conn *c, const br::Head &h) {
  if (!h.expect_continue || h.http10 || c->continue_sent || c->slot_count) return;
  c->continue_sent = true;
  c->out.append("HTTP/1.1 100 Continue\r\n\r\n", 25);
  mark_dirty(l, c);
}

void dispatch(br_loop *l, Conn *c, const br::Head &h, br_str body) {
  const char *path = h.target;
  size_t pn = h.target_len;
  if (pn > 7 && (!memcmp(path, "http://", 7) || !memcmp(path, "https://", 8))) {  // absolute-form
    const char *auth = static_cast<const char *>(memchr(path, ':', pn)) + 3;
    const char *slash = static_cast<const char *>(memchr(auth, '/', size_t(path + pn - auth)));
    if (slash) {
      pn -= size_t(slash - path);
      path = slash;
    } else {
      path = "/";
      pn = 1;
    }
  }
  br_str query = {nullptr, 0};
  if (const char *q = static_cast<const char *>(memchr(path, '?', pn))) {
    query = br_str{q + 1, size_t(path + pn - q - 1)};
    pn = size_t(q - path);
  }
  uint8_t req = 0;
  if (h.http10) {
    req |= br::kReqHttp10;
    if (!h.keep_alive || h.close) req |= br::kReqClose;
    else req |= br::kReqKeepAlive10;
  } else if (h.close) {
    req |= br::kReqClose;
  }
  if (h.method_id == BR_METHOD_HEAD) req |= br::kReqHead;
  if (req & br::kReqClose) c->close_after = true;  // nothing after it is read

  br_str params[BR_MAX_PARAMS];
  uint32_t np = 0;
  uint32_t t = l->app->router.find(h.method_id, path, pn, params, &np);
  if (t == br::Router::kNone) return answer_static(l, c, br::no_route(l->app, path, pn), req);
  const br::Target &target = l->app->targets[t];
  if (target.st) return answer_static(l, c, target.st, req);
  if (target.ws) return upgrade(l, c, h, body, t, req);

  Slot &s = c->push_slot();
  s.req = req;
  c->in_batch++;
  br_request &r = l->reqs.emplace_back();
  r.conn = c->id;
  r.seq = s.seq;
  r.route = target.route;
  r.flags = ((req & br::kReqHttp10) ? BR_REQ_HTTP10 : 0) | ((req & br::kReqClose) ? BR_REQ_CLOSE : 0) |
            ((req & br::kReqHead) ? BR_REQ_HEAD : 0);
  r.n_headers = h.n_headers;
  r.n_params = np;
  r.method_id = h.method_id;
  r.method = br_str{h.method, h.method_len};
  r.path = br_str{path, pn};
  r.query = query;
  r.body = body;
  r.headers = nullptr;  // set when the batch is handed over: the header array may still grow
  for (uint32_t i = 0; i < np; i++) r.params[i] = params[i];
  l->req_conn.push_back(c);
  l->req_hdr.push_back(uint32_t(l->n_hdrs));
  l->n_hdrs += h.n_headers;
}

// Parses and answers every complete request buffered on c, in order.
void process(br_loop *l, Conn *c) {
  const br::Limits &lim = l->app->lim;
  while (!c->dead && !c->close_after && c->parsed < c->in.len) {
    if (c->ws_kind) return process_ws(l, c);
    if (c->slot_count >= kMaxSlots || c->out.bytes() >= l->app->cfg.send_buffer) {
      set_reading(l, c, false);  // backpressure: resumes when the answers drained
      return;
    }
    size_t hdr_room = (l->n_hdrs + lim.max_headers) * sizeof(br_header);
    if (hdr_room > l->hdrs.cap) {  // moves earlier headers: the batch refers to them by index
      l->hdrs.len = l->n_hdrs * sizeof(br_header);
      l->hdrs.reserve(hdr_room - l->hdrs.len);
    }
    char *base = c->in.data + c->parsed;
    size_t avail = c->in.len - c->parsed;
    br::Head h;
    int r = br::parse_head(base, avail, lim, &h, reinterpret_cast<br_header *>(l->hdrs.data) + l->n_hdrs);
    if (r == 0) return;
    if (r < 0) return fail(l, c, -r);
    size_t total = h.head_len;
    br_str body = {nullptr, 0};
    if (h.chunked) {
      if (!c->in_chunked) br::chunk_begin(c->chunk, h.head_len);
      c->in_chunked = true;
      int d = br::decode_chunked(base, avail, c->chunk, lim);
      if (d < 0) return fail(l, c, -d);
      if (d == 0) return send_continue(l, c, h);
      c->in_chunked = false;
      body = br_str{base + h.head_len, size_t(c->chunk.wr - h.head_len)};
      total = size_t(c->chunk.rd);
    } else if (h.content_length > 0) {
      size_t want = h.head_len + size_t(h.content_length);
      if (avail < want) {
        c->need = want;
        return send_continue(l, c, h);
      }
      body = br_str{base + h.head_len, size_t(h.content_length)};
      total = want;
    }
    c->need = 0;
    c->continue_sent = false;
    c->partial = false;
    c->parsed += total;
    dispatch(l, c, h, body);
  }
}

void update_deadline(br_loop *l, Conn *c, bool progressed) {
  const br_config &cfg = l->app->cfg;
  if (c->ws_kind) {  // WebSocket: any traffic, or output still draining, keeps it open
    uint32_t idle = l->app->targets[c->ws_target].ws_idle_ms;
    if (c->ws_sent_close && idle > kCloseWaitMs) idle = kCloseWaitMs;  // the answer is due now
    if (c->out.empty() || progressed || !c->deadline) c->deadline = l->now_ms + idle;
    return;
  }
  if (!c->out.empty()) {
    if (progressed || !c->deadline) c->deadline = l->now_ms + cfg.idle_timeout_ms;
  } else if (c->slot_count || c->in_batch) {
    c->deadline = 0;  // the embedder is answering
  } else if (c->parsed < c->in.len || c->in_chunked) {
    if (!c->partial) {  // a request started: its head must arrive in time (slowloris)
      c->partial = true;
      c->deadline = l->now_ms + cfg.header_timeout_ms;
    }
  } else {
    c->partial = false;
    c->deadline = l->now_ms + cfg.idle_timeout_ms;
  }
}

// Closes c once it owes nothing and has nothing more to read.
void maybe_finish(br_loop *l, Conn *c) {
  if (c->dead || c->slot_count || c->in_batch || !c->out.empty()) return;
  if (c->close_after || c->read_closed || l->stopping) destroy(l, c);
}

// After output drained or answers arrived: parse what is buffered, resume reading, or close.
void after_output(br_loop *l, Conn *c, bool progressed) {
  if (c->dead) return;
  if (c->slot_count < kMaxSlots && c->out.bytes() < l->app->cfg.send_buffer) {
    process(l, c);
    if (!c->dead && !c->close_after && !c->read_closed && !l->stopping &&
        c->slot_count < kMaxSlots && c->out.bytes() < l->app->cfg.send_buffer)
      set_reading(l, c, true);
  }
  maybe_finish(l, c);
  if (!c->dead) update_deadline(l, c, progressed);
}

void flush_conn(br_loop *l, Conn *c) {
  ssize_t w = 0;
  if (!c->out.empty()) {
    w = c->out.flush(c->fd, [l](Op *op) { chunk_done(l, op); });
    if (w < 0) return destroy(l, c);
    bool pending = !c->out.empty();
    if (pending != c->want_write) {
      c->want_write = pending;
      update_events(l, c);
    }
  }
  after_output(l, c, w > 0);
  if (!c->dead && c->ws_kind == br::kWsEvents && !c->ws_reported) report_backlog(l, c);
}

// One send per connection for everything answered since the last flush. Connections with
// requests in the embedder's hands wait, so their answers leave together.
void flush_dirty(br_loop *l) {
  l->spare.clear();
  while (!l->dirty.empty()) {
    l->flushing.swap(l->dirty);  // both keep their capacity: no allocation per step
    for (Conn *c : l->flushing) {
      c->dirty = false;
      if (c->dead) continue;
      if (c->in_batch) {
        c->dirty = true;
        l->spare.push_back(c);
        continue;
      }
      flush_conn(l, c);
    }
    l->flushing.clear();
  }
  l->dirty.swap(l->spare);
}

void on_readable(br_loop *l, Conn *c) {
  if (!c->reading) return;
  br::Buffer &in = c->in;
  if (c->parsed == in.len) {
    in.len = c->parsed = 0;
    if (c->ws_kind && in.cap > 4 * kInitialIn) {  // one large message must not pin its buffer
      in.release();
      in.reserve(kInitialIn);
    }
  } else if (c->parsed && (in.cap - in.len < kReadRoom || c->need > in.cap - c->parsed)) {
    memmove(in.data, in.data + c->parsed, in.len - c->parsed);
    in.len -= c->parsed;
    c->parsed = 0;  // chunk offsets are relative to the request start: still valid
  }
  if (in.cap - in.len < kReadRoom || c->need > in.cap) {
    const br_config &cfg = l->app->cfg;
    size_t max = c->ws_kind ? size_t(l->app->targets[c->ws_target].ws_max) + 65536
                            : size_t(cfg.max_uri) + cfg.max_header_bytes + cfg.max_body + 65536;
    size_t want = c->need > in.cap ? c->need : in.cap * 2;
    if (want > max) want = max;
    if (want > in.cap) in.reserve(want - in.len);
    if (in.cap == in.len) {  // one request fills the whole limit
      if (c->ws_kind) return ws_fail(l, c, ws::kTooBig);
      fail(l, c, 413);
      return;
    }
  }
  ssize_t n = recv(c->fd, in.data + in.len, in.cap - in.len, 0);
  if (n > 0) {
    in.len += size_t(n);
    process(l, c);
    // A body still arriving re-arms the request timeout on each read; a head does not.
    if (c->in_chunked || (c->parsed < in.len && c->need)) c->partial = false;
  } else if (n == 0) {
    c->read_closed = true;
    set_reading(l, c, false);
    process(l, c);
  } else {
    if (errno == EAGAIN || errno == EINTR) return;
    return destroy(l, c);
  }
  if (c->dead) return;
  mark_dirty(l, c);
}

void on_accept(br_loop *l) {
  for (int i = 0; i < 256; i++) {
    int fd = accept4(l->lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or out of descriptors: retried on the next readiness
    if (l->app->conns.fetch_add(1) >= l->app->cfg.max_conns) {
      // Over the limit: a best-effort 503 and close; the client is told, not left hanging.
      l->app->conns.fetch_sub(1);
      const br::Buffer &t = l->app->e503->tmpl;
      ssize_t ignored = send(fd, t.data, t.len, MSG_NOSIGNAL | MSG_DONTWAIT);
      (void)ignored;
      close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    Conn *c;
    if (!l->pool.empty()) {
      c = l->pool.back();
      l->pool.pop_back();
    } else {
      c = new Conn();
    }
    if (!c->in.cap) c->in.reserve(kInitialIn);
    uint32_t idx;
    if (!l->free_idx.empty()) {
      idx = l->free_idx.back();
      l->free_idx.pop_back();
    } else {
      idx = uint32_t(l->table.size());
      l->table.push_back(nullptr);
    }
    c->fd = fd;
    c->idx = idx;
    c->gen = l->next_gen++;
    c->id = uint64_t(c->gen) << 32 | idx;
    c->deadline = l->now_ms + l->app->cfg.header_timeout_ms;
    l->table[idx] = c;
    l->live++;
    struct epoll_event ev = {};
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev);
  }
}

// Frees closed connections for reuse; only while the embedder holds no views into them.
void reap(br_loop *l) {
  for (Conn *c : l->dead) {
    l->table[c->idx] = nullptr;
    l->free_idx.push_back(c->idx);
    br::Buffer in = c->in;
    in.len = 0;
    in.shrink(64 * 1024);
    std::vector<Slot> slots;
    slots.swap(c->slots);
    c->out.release();
    *c = Conn();
    c->in = in;
    c->slots.swap(slots);
    l->pool.push_back(c);
  }
  l->dead.clear();
}

void sweep(br_loop *l) {
  for (Conn *c : l->table) {
    if (!c || c->dead || !c->deadline || l->now_ms < c->deadline) continue;
    if (c->partial && !c->slot_count && c->out.empty()) {  // a request too slow to arrive
      br::write_static(c->out, *l->app->e408, br::kReqClose, true, l->date);
      c->out.flush(c->fd, [l](Op *op) { chunk_done(l, op); });
    }
    destroy(l, c);
  }
}

void apply_op(br_loop *l, Op *op) {
  if (op->kind == Op::kWsSend || op->kind == Op::kWsClose) {
    bool close = op->kind == Op::kWsClose;
    ws_apply_send(l, op->conn, close ? BR_WS_OP_CLOSE : op->status, close ? op->status : 0, op->data,
                  op->body_len);
    l->ws_posted_applied++;
    return br::op_free(op);
  }
  if (op->kind == Op::kComplete) {
    Conn *c = lookup(l, op->conn);
    if (!c) return br::op_free(op);
    respond(l, c, op->seq, op->status, op->flags, op->data, op->head_len, op->data + op->head_len,
            op->body_len, op->body, op->stream, op);
    mark_dirty(l, c);
    return;
  }
  br_stream *st = op->stream;
  Conn *c = st->conn ? lookup(l, st->conn) : nullptr;
  Slot *s = c ? c->find_slot(st->seq) : nullptr;
  if (!s || s->state != Slot::kStream || s->stream != st) {
    if (op->kind == Op::kData) chunk_done(l, op);
    else br::op_free(op);
    return;
  }
  bool ready = s == &c->front() && !s->op;
  if (op->kind == Op::kData) {
    if (ready) return stream_chunk(l, c, *s, op);
    if (!s->later) s->later = new std::vector<Op *>();
    s->later->push_back(op);
    return;
  }
  if (ready) {
    end_stream(l, c, *s);
    drain(l, c);
  } else {
    s->stream_closed = true;
  }
  br::op_free(op);
}

void drain_inbox(br_loop *l) {
  uint64_t v;
  ssize_t ignored = read(l->efd, &v, sizeof v);
  (void)ignored;
  l->signaled.store(false);
  {
    std::lock_guard<std::mutex> g(l->mu);
    l->work.swap(l->inbox);
  }
  for (Op *op : l->work) apply_op(l, op);
  l->work.clear();
}

void begin_stop(br_loop *l) {
  int req = l->stop_req.load();
  if (!req) return;
  if (!l->stopping) {
    l->stopping = true;
    epoll_ctl(l->ep, EPOLL_CTL_DEL, l->lfd, nullptr);
    close(l->lfd);
    l->lfd = -1;
    for (Conn *c : l->table) {
      if (!c || c->dead) continue;
      set_reading(l, c, false);  // finish what was read; read nothing more
      if (c->ws_kind && !c->ws_sent_close) ws_send_close(l, c, ws::kGoingAway, nullptr, 0);
      mark_dirty(l, c);
    }
  }
  if (req == 2)
    for (Conn *c : l->table)
      if (c && !c->dead) destroy(l, c);
}

// Answers the embedder wrote for the batch it was handed.
void apply_batch(br_loop *l) {
  size_t n = l->reqs.size();
  for (size_t i = 0; i < n; i++) {
    Conn *c = l->req_conn[i];
    c->in_batch--;
    const br_response &res = l->resps[i];
    if (c->dead || (res.flags & BR_RES_DETACHED)) continue;
    uint32_t flags = res.flags;
    br_body *shared = (flags & BR_RES_BODY) ? res.body : nullptr;
    br_stream *st = (flags & BR_RES_STREAM) ? res.stream : nullptr;
    respond(l, c, l->reqs[i].seq, res.status, flags, l->head_arena.data + res.head_off, res.head_len,
            l->body_arena.data + res.body_off, res.body_len, shared, st, nullptr);
    mark_dirty(l, c);
  }
  l->reqs.clear();
  l->req_conn.clear();
  l->req_hdr.clear();
  l->n_hdrs = 0;
}

// The embedder's sends written during the batch, after the batch's events are released.
void apply_ws(br_loop *l, br_batch *b) {
  for (Conn *c : l->ws_conn) {
    c->in_batch--;
    if (!c->dead) mark_dirty(l, c);
  }
  l->ws_events.clear();
  l->ws_conn.clear();
  uint64_t used = b->ws_used;
  b->ws_used = 0;
  if (used > l->ws_arena.cap) return;  // a broken embedder: ignore rather than read past the arena
  const char *a = l->ws_arena.data;
  for (uint64_t off = 0; off + sizeof(br_ws_out) <= used;) {
    br_ws_out o;
    memcpy(&o, a + off, sizeof o);
    const char *p = a + off + sizeof o;
    if (o.len > used - off - sizeof o) return;
    off += sizeof o + ((uint64_t(o.len) + 7) & ~uint64_t(7));
    ws_apply_send(l, o.conn, o.opcode, o.code, p, o.len);
  }
}

void fill_batch(br_loop *l, br_batch *b) {
  size_t n = l->reqs.size();
  auto *hdrs = reinterpret_cast<br_header *>(l->hdrs.data);
  for (size_t i = 0; i < n; i++) l->reqs[i].headers = hdrs + l->req_hdr[i];
  if (l->resps.size() < n) l->resps.resize(n);
  if (n) memset(l->resps.data(), 0, n * sizeof(br_response));
  b->reqs = l->reqs.data();
  b->resps = l->resps.data();
  b->n = uint32_t(n);
  b->wakes = l->wakes.data();
  b->n_wakes = uint32_t(l->wakes.size());
  b->head_arena = l->head_arena.data;
  b->head_cap = l->head_arena.cap;
  b->body_arena = l->body_arena.data;
  b->body_cap = l->body_arena.cap;
  b->done = 0;
  b->ws = l->ws_events.data();
  b->n_ws = uint32_t(l->ws_events.size());
  b->ws_arena = l->ws_arena.data;
  b->ws_cap = l->ws_arena.cap;
  b->ws_used = 0;
  b->ws_posted_applied = l->ws_posted_applied;
}

}  // namespace

extern "C" {

br_loop *br_loop_new(br_app *app, const char *host, int port, int *err) {
  auto fail_with = [err](int e, int fd) -> br_loop * {
    if (fd >= 0) close(fd);
    if (err) *err = e;
    return nullptr;
  };
  struct sockaddr_in6 a6 = {};
  struct sockaddr_in a4 = {};
  bool v6 = host && strchr(host, ':');
  if (v6) {
    a6.sin6_family = AF_INET6;
    a6.sin6_port = htons(uint16_t(port));
    if (inet_pton(AF_INET6, host, &a6.sin6_addr) != 1) return fail_with(EINVAL, -1);
  } else {
    a4.sin_family = AF_INET;
    a4.sin_port = htons(uint16_t(port));
    if (host && *host && inet_pton(AF_INET, host, &a4.sin_addr) != 1) return fail_with(EINVAL, -1);
  }
  auto bind_to = [&](int fd) {
    return v6 ? bind(fd, reinterpret_cast<sockaddr *>(&a6), sizeof a6)
              : bind(fd, reinterpret_cast<sockaddr *>(&a4), sizeof a4);
  };
  int one = 1;
  if (port != 0 && app->group_port.load() != port) {
    // SO_REUSEPORT would let this loop join a group another process (of the same user) already
    // listens with, and split its connections with it silently. A bind without it fails with
    // EADDRINUSE when anyone listens on the port, as every other server does.
    int probe = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0) return fail_with(errno, -1);
    setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // TIME_WAIT is no owner
    if (bind_to(probe) < 0) return fail_with(errno, probe);
    close(probe);
  }
  int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail_with(errno, -1);
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  if (bind_to(fd) < 0 || listen(fd, 4096) < 0) return fail_with(errno, fd);
  struct sockaddr_in6 bound = {};
  socklen_t bl = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr *>(&bound), &bl);

  auto *l = new br_loop();
  l->app = app;
  l->lfd = fd;
  l->port = ntohs(bound.sin6_port);  // sin_port and sin6_port share an offset
  app->group_port.store(l->port);
  l->ep = epoll_create1(EPOLL_CLOEXEC);
  l->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenerTag;
  epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev);
  ev.data.u64 = kWakeTag;
  epoll_ctl(l->ep, EPOLL_CTL_ADD, l->efd, &ev);
  l->head_arena.reserve(64 * 1024);
  l->body_arena.reserve(64 * 1024);
  l->ws_arena.reserve(64 * 1024);
  uint32_t shortest = app->cfg.header_timeout_ms < app->cfg.idle_timeout_ms ? app->cfg.header_timeout_ms
                                                                            : app->cfg.idle_timeout_ms;
  for (const br::Target &t : app->targets)
    if (t.ws && t.ws_idle_ms < shortest) shortest = t.ws_idle_ms;
  l->sweep_every = shortest / 4 < 10 ? 10 : shortest / 4 > 1000 ? 1000 : shortest / 4;
  tick(l);
  l->next_sweep = l->now_ms + l->sweep_every;
  return l;
}

int br_loop_port(br_loop *l) { return l->port; }

int br_loop_step(br_loop *l, br_batch *b) {
  apply_batch(l);
  apply_ws(l, b);
  l->wakes.clear();
  struct epoll_event events[512];
  for (;;) {
    flush_dirty(l);
    if (!l->reqs.empty() || !l->wakes.empty() || !l->ws_events.empty()) break;
    reap(l);
    if (l->stopping && l->live == 0) {
      fill_batch(l, b);
      b->done = 1;
      return 0;
    }
    int timeout = int(l->next_sweep > l->now_ms ? l->next_sweep - l->now_ms : 0);
    int n = epoll_wait(l->ep, events, 512, timeout);
    if (n < 0 && errno != EINTR) return -1;
    tick(l);
    for (int i = 0; i < n; i++) {
      uint64_t tag = events[i].data.u64;
      if (tag == kListenerTag) {
        if (!l->stopping) on_accept(l);
        continue;
      }
      if (tag == kWakeTag) {
        drain_inbox(l);
        begin_stop(l);
        continue;
      }
      Conn *c = static_cast<Conn *>(events[i].data.ptr);
      if (c->dead) continue;
      uint32_t e = events[i].events;
      if (e & EPOLLIN) on_readable(l, c);
      if (!c->dead && (e & EPOLLOUT)) mark_dirty(l, c);
      if (!c->dead && (e & (EPOLLERR | EPOLLHUP)) && !(e & EPOLLIN)) destroy(l, c);
    }
    if (l->now_ms >= l->next_sweep) {
      sweep(l);
      l->next_sweep = l->now_ms + l->sweep_every;
    }
  }
  fill_batch(l, b);
  return 0;
}

void br_loop_grow(br_loop *l, br_batch *b, int which, uint64_t used, uint64_t need) {
  br::Buffer &a = which == 2 ? l->ws_arena : which ? l->body_arena : l->head_arena;
  a.len = size_t(used);
  a.reserve(size_t(need));
  a.len = 0;
  if (which == 2) {
    b->ws_arena = a.data;
    b->ws_cap = a.cap;
  } else if (which) {
    b->body_arena = a.data;
    b->body_cap = a.cap;
  } else {
    b->head_arena = a.data;
    b->head_cap = a.cap;
  }
}

static void post(br_loop *l, Op *op) {
  {
    std::lock_guard<std::mutex> g(l->mu);
    l->inbox.push_back(op);
  }
  if (!l->signaled.exchange(true)) {
    uint64_t one = 1;
    ssize_t ignored = write(l->efd, &one, sizeof one);
    (void)ignored;
  }
}

void br_loop_stop(br_loop *l, int force) {
  int want = force ? 2 : 1;
  int cur = l->stop_req.load();
  while (cur < want && !l->stop_req.compare_exchange_weak(cur, want)) {
  }
  uint64_t one = 1;
  ssize_t ignored = write(l->efd, &one, sizeof one);
  (void)ignored;
}

void br_loop_free(br_loop *l) {
  for (Conn *c : l->table)
    if (c && !c->dead) destroy(l, c);
  l->wakes.clear();
  reap(l);
  for (Op *op : l->inbox) br::op_free(op);
  for (Conn *c : l->pool) {
    c->in.release();
    c->out.release();
    delete c;
  }
  if (l->lfd >= 0) close(l->lfd);
  close(l->ep);
  close(l->efd);
  l->hdrs.release();
  l->head_arena.release();
  l->body_arena.release();
  l->ws_arena.release();
  delete l;
}

void br_loop_complete(br_loop *l, uint64_t conn, uint32_t seq, uint32_t status, uint32_t flags,
                      const void *head, size_t head_len, const void *body, size_t body_len,
                      br_body *shared, br_stream *stream) {
  Op *op = br::op_new(Op::kComplete, head_len + body_len);
  if (head_len) memcpy(op->data, head, head_len);
  if (body_len) memcpy(op->data + head_len, body, body_len);
  op->head_len = head_len;
  op->body_len = body_len;
  op->conn = conn;
  op->seq = seq;
  op->status = status;
  op->flags = flags;
  op->body = shared ? br::body_ref(shared) : nullptr;
  if (stream) br::stream_ref(stream);
  op->stream = stream;
  post(l, op);
}

br_stream *br_stream_open(br_loop *l, uint64_t token, int64_t content_length) {
  auto *s = new br_stream();
  s->loop = l;
  s->token = token;
  s->content_length = content_length < 0 ? -1 : content_length;
  s->limit = int64_t(l->app->cfg.send_buffer);
  s->inflight.store(0);
  s->want_wake.store(0);
  s->dead.store(0);
  s->refs.store(1);
  s->conn = 0;
  s->seq = 0;
  s->sent_body = 0;
  return s;
}

int br_stream_write(br_stream *s, const void *data, size_t len, int force) {
  if (s->dead.load()) return -1;
  if (!len) return 1;
  if (!force && s->inflight.load() >= s->limit) {
    s->want_wake.store(1);
    if (s->inflight.load() >= s->limit) return s->dead.load() ? -1 : 0;  // re-check: no lost wake
  }
  Op *op = br::op_new(Op::kData, len);
  memcpy(op->data, data, len);
  op->body_len = len;
  br::stream_ref(s);
  op->stream = s;
  s->inflight.fetch_add(int64_t(len));
  post(s->loop, op);
  return 1;
}

void br_stream_close(br_stream *s) {
  Op *op = br::op_new(Op::kClose, 0);
  op->stream = s;  // carries the caller's reference, dropped once applied
  post(s->loop, op);
}

}  // extern "C"

extern "C" {

void br_ws_send(br_loop *l, uint64_t conn, uint32_t opcode, const void *data, size_t len) {
  Op *op = br::op_new(Op::kWsSend, len);
  if (len) memcpy(op->data, data, len);
  op->body_len = len;
  op->conn = conn;
  op->status = opcode;
  post(l, op);
}

void br_ws_close(br_loop *l, uint64_t conn, uint32_t code, const void *reason, size_t len) {
  if (len > 123) len = 123;
  Op *op = br::op_new(Op::kWsClose, len);
  if (len) memcpy(op->data, reason, len);
  op->body_len = len;
  op->conn = conn;
  op->status = code;
  post(l, op);
}

}  // extern "C"
