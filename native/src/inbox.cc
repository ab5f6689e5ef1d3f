// inbox.cc — see inbox.h.
#include "inbox.h"

#include <sys/eventfd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "loop.h"
#include "slots.h"
#include "stream.h"
#include "ws_conn.h"

namespace br {

// EAGAIN means the counter is saturated, i.e. a wake is already pending; any other error means
// the loop's eventfd is gone, which only a use after br_loop_free can cause: then no caller
// could be told, and a loop that never wakes would hang its embedder.
void wake(br_loop *l) {
  for (;;) {
    if (eventfd_write(l->efd, 1) == 0 || errno == EAGAIN) return;
    if (errno != EINTR) abort();
  }
}

namespace {

void apply_op(br_loop *l, Op *op) {
  if (op->kind == Op::kWsSend || op->kind == Op::kWsClose) {
    bool close = op->kind == Op::kWsClose;
    ws_apply_send(l, op->conn, close ? uint32_t(BR_WS_OP_CLOSE) : op->status, close ? op->status : 0, op->data,
                  op->body_len);
    l->ws_posted_applied++;
    return op_free(op);
  }
  if (op->kind == Op::kComplete) {
    Conn *c = lookup(l, op->conn);
    if (!c) return op_free(op);
    Answer a{op->status, op->flags, op->data, op->head_len, op->data + op->head_len,
             op->body_len, op->body, op->stream};
    respond(l, c, op->seq, a, op);
    mark_dirty(l, c);
    return;
  }
  stream_op(l, op);
}

// Posts a WebSocket op (kWsSend or kWsClose) for connection conn: status carries the opcode or
// close code, data the payload or close reason (copied: the caller's buffer is free on return).
void post_ws(br_loop *l, Op::Kind kind, uint64_t conn, uint32_t status, const void *data, size_t len) {
  Op *op = op_new(kind, len);
  if (len) memcpy(op->data, data, len);
  op->body_len = len;
  op->conn = conn;
  op->status = status;
  post(l, op);
}

// Whether c owes a detached answer to a request pipelined after seq's. Such answers are left to
// the loop: answered in place one by one, each would leave in a send of its own, where the loop
// sends every answer it has when it wakes in one (a pipelined client's ten answers in one send
// rather than ten).
bool waiting_after(Conn *c, uint32_t seq) {
  SlotRing &slots = c->http.slots;
  bool after = false;
  for (uint32_t i = 0; i < slots.count; i++) {
    Slot &s = slots.at(i);
    if (after && s.state == Slot::kWaiting) return true;
    if (s.seq == seq) after = true;
  }
  return false;
}

// Ends a detached response in place, from the thread that ends it, when the loop idles in the
// embedder's poller: the answer is applied and sent here, and the loop is not woken for it (a
// wake costs the embedder's scheduler a switch to the loop and the loop an eventfd and two
// polls). Only when nothing is queued before it (the loop has applied every op posted so far:
// a caller's earlier stream write or send stays ahead of its answer) and the loop is not
// stopping, and when no answer pipelined after it is still owed (waiting_after); otherwise
// false, and the caller posts it.
bool complete_in_place(br_loop *l, uint64_t conn, uint32_t seq, const Answer &a) {
  if (!guest_enter(l)) return false;
  // signaled is cleared only by the loop's drain, before it takes the inbox, and the loop
  // gives its state up only after that drain: false here means nothing posted is still queued.
  if (l->signaled.load(std::memory_order_acquire) || l->stop_req.load() || l->stopping) {
    guest_leave(l);
    return false;
  }
  Conn *c = lookup(l, conn);
  if (c && waiting_after(c, seq)) {  // pipelined answers still to come: the loop sends them together
    guest_leave(l);
    return false;
  }
  if (c) {
    respond(l, c, seq, a, nullptr);
    mark_dirty(l, c);
    flush_dirty(l);
  }
  guest_leave(l);
  return true;
}

}  // namespace

void post(br_loop *l, Op *op) {
  {
    std::lock_guard<std::mutex> g(l->mu);
    l->inbox.push_back(op);
  }
  if (!l->signaled.exchange(true)) wake(l);  // one wake until the loop drained the inbox
}

int drain_inbox(br_loop *l) {
  eventfd_t v;
  // EAGAIN: the wake was for br_loop_stop, or already consumed with the ops it announced.
  if (eventfd_read(l->efd, &v) < 0 && errno != EAGAIN && errno != EINTR) return -1;
  l->signaled.store(false);
  {
    std::lock_guard<std::mutex> g(l->mu);
    l->work.swap(l->inbox);
  }
  for (Op *op : l->work) apply_op(l, op);
  l->work.clear();
  return 0;
}

}  // namespace br

extern "C" {

void br_loop_stop(br_loop *l, int force) {
  int want = force ? 2 : 1;
  int cur = l->stop_req.load();
  while (cur < want && !l->stop_req.compare_exchange_weak(cur, want)) {
  }
  br::wake(l);
}

void br_loop_complete(br_loop *l, uint64_t conn, uint32_t seq, uint32_t status, uint32_t flags,
                      const void *head, size_t head_len, const void *body, size_t body_len,
                      br_body *shared, br_stream *stream) {
  br::Answer a{status, flags, static_cast<const char *>(head), head_len, static_cast<const char *>(body),
               body_len, shared, stream};
  if (br::complete_in_place(l, conn, seq, a)) return;
  br::Op *op = br::op_new(br::Op::kComplete, head_len + body_len);
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
  br::post(l, op);
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
  br::Op *op = br::op_new(br::Op::kData, len);
  memcpy(op->data, data, len);
  op->body_len = len;
  br::stream_ref(s);
  op->stream = s;
  s->inflight.fetch_add(int64_t(len));
  br::post(s->loop, op);
  return 1;
}

void br_stream_close(br_stream *s) {
  br::Op *op = br::op_new(br::Op::kClose, 0);
  op->stream = s;  // carries the caller's reference, dropped once applied
  br::post(s->loop, op);
}

void br_ws_send(br_loop *l, uint64_t conn, uint32_t opcode, const void *data, size_t len) {
  br::post_ws(l, br::Op::kWsSend, conn, opcode, data, len);
}

void br_ws_close(br_loop *l, uint64_t conn, uint32_t code, const void *reason, size_t len) {
  if (len > 123) len = 123;  // a close frame's reason (RFC 6455 5.5)
  br::post_ws(l, br::Op::kWsClose, conn, code, reason, len);
}

}  // extern "C"
