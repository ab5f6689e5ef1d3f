// slots.cc — see slots.h. Answers are written in request order; a streamed body's chunks go out
// as they come while its slot is at the front, and wait in the slot until then.
#include "slots.h"

#include <cstdio>
#include <cstring>

#include "loop.h"
#include "response.h"

namespace br {
namespace {

void kill_stream(br_loop *l, br_stream *st) {
  st->dead.store(1);
  if (st->want_wake.exchange(0)) l->wakes.push_back(st->token);  // a blocked writer learns it
  stream_unref(st);
}

void release_slot(br_loop *l, Slot &s) {
  if (s.op) op_free(s.op);
  if (s.later) {
    for (Op *op : *s.later) chunk_done(l, op);
    delete s.later;
  }
  if (s.stream) kill_stream(l, s.stream);
  s = Slot{};
}

void stream_chunk(br_loop *l, Conn *c, Slot &s, Op *op) {
  br_stream *st = s.stream;
  if (s.req & kReqHead) return chunk_done(l, op);
  if (st->content_length >= 0 && st->sent_body + op->body_len > uint64_t(st->content_length)) {
    auto keep = size_t(uint64_t(st->content_length) - st->sent_body);  // never past the length
    st->inflight.fetch_sub(int64_t(op->body_len - keep));
    op->body_len = keep;
  }
  if (!op->body_len) return chunk_done(l, op);
  st->sent_body += op->body_len;
  bool chunked = st->content_length < 0 && !(s.req & kReqHttp10);
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
  if (st->content_length < 0 && !(s.req & kReqHttp10)) c->out.append("0\r\n\r\n", 5);
  else if (st->content_length < 0 || st->sent_body != uint64_t(st->content_length))
    discard_rest(l, c);  // the body's end is only known by the connection closing
  stream_unref(st);
  s.stream = nullptr;
  c->http.slots.pop();
  mark_dirty(l, c);
}

// Writes the answer for the front slot (the head only for a stream).
void write_answer(br_loop *l, Conn *c, Slot &s, const Answer &a) {
  uint32_t status = a.status ? a.status : 500;
  bool close = (s.req & kReqClose) || (a.flags & BR_RES_CLOSE) || stop_close(l, c);
  if (s.stream) {
    int64_t len = s.stream->content_length;
    if (len < 0) len = (s.req & kReqHttp10) ? kUntilClose : kChunked;
    if (len == kUntilClose) close = true;
    write_head(c->out, status, a.head, a.head_len, len, s.req, close, l->date);
  } else if (a.shared) {
    write_head(c->out, status, a.head, a.head_len, int64_t(a.shared->len), s.req, close, l->date);
    if (!(s.req & kReqHead)) c->out.append_body(a.shared, 0, a.shared->len);
  } else {
    write_full(c->out, status, a.head, a.head_len, a.body, a.body_len, s.req, close, l->date);
  }
  if (close) discard_rest(l, c);
  mark_dirty(l, c);
}

// What a stored op answers with (its stream, if any, is already the slot's).
Answer stored(const Op *op, bool with_body) {
  return Answer{op->status, op->flags, op->data, op->head_len, op->data + op->head_len,
                with_body ? op->body_len : 0, with_body ? op->body : nullptr, nullptr};
}

// Writes every answer at the front that is ready, in order.
void drain(br_loop *l, Conn *c) {
  SlotRing &slots = c->http.slots;
  while (slots.count && !c->dead) {
    Slot &s = slots.front();
    switch (s.state) {
      case Slot::kWaiting:
        return;
      case Slot::kStatic: {
        bool close = (s.req & kReqClose) || stop_close(l, c);
        write_static(c->out, *s.st, s.req, close, l->date);
        slots.pop();
        if (close) discard_rest(l, c);
        mark_dirty(l, c);
        break;
      }
      case Slot::kStored: {
        Op *op = s.op;
        s.op = nullptr;
        write_answer(l, c, s, stored(op, true));
        op_free(op);
        slots.pop();
        break;
      }
      case Slot::kStream:
        if (Op *op = s.op) {
          s.op = nullptr;
          write_answer(l, c, s, stored(op, false));
          op_free(op);
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

}  // namespace

void chunk_done(br_loop *l, Op *op) {
  if (br_stream *st = op->stream) {
    int64_t left = st->inflight.fetch_sub(int64_t(op->body_len)) - int64_t(op->body_len);
    if (left <= st->limit / 2 && st->want_wake.load() && st->want_wake.exchange(0))
      l->wakes.push_back(st->token);
  }
  op_free(op);
}

void discard_rest(br_loop *l, Conn *c) {
  SlotRing &slots = c->http.slots;
  c->close_after = true;
  while (slots.count > 1) {
    release_slot(l, slots.at(slots.count - 1));
    slots.count--;
  }
}

void release_slots(br_loop *l, Conn *c) {
  SlotRing &slots = c->http.slots;
  while (slots.count) {
    release_slot(l, slots.front());
    slots.pop();
  }
}

void answer_static(br_loop *l, Conn *c, const StaticResponse *st, uint8_t req) {
  if (c->http.slots.count == 0) {  // the hot path: nothing owed, answer now
    bool close = (req & kReqClose) || stop_close(l, c);
    write_static(c->out, *st, req, close, l->date);
    if (close) c->close_after = true;
    mark_dirty(l, c);
    return;
  }
  Slot &s = c->http.slots.push();
  s.state = Slot::kStatic;
  s.st = st;
  s.req = req;
}

void respond(br_loop *l, Conn *c, uint32_t seq, const Answer &a, Op *own) {
  Slot *s = c->http.slots.find(seq);
  if (!s || s->state != Slot::kWaiting) {
    if (own) op_free(own);
    return;
  }
  if (br_stream *st = a.stream) {
    st->conn = c->id;
    st->seq = seq;
    if (own) own->stream = nullptr;  // the slot takes the op's reference
    else stream_ref(st);
    s->stream = st;
  }
  if (s != &c->http.slots.front()) {  // an earlier answer is still owed: keep a copy until it is sent
    Op *op = own;
    if (!op) {
      op = op_new(Op::kComplete, a.head_len + a.body_len);
      if (a.head_len) memcpy(op->data, a.head, a.head_len);
      if (a.body_len) memcpy(op->data + a.head_len, a.body, a.body_len);
      op->head_len = a.head_len;
      op->body_len = a.body_len;
      op->body = a.shared ? body_ref(a.shared) : nullptr;
    }
    op->status = a.status;
    op->flags = a.flags;
    s->op = op;
    s->state = a.stream ? Slot::kStream : Slot::kStored;
    return;
  }
  write_answer(l, c, *s, a);
  if (own) op_free(own);
  if (a.stream) s->state = Slot::kStream;
  else c->http.slots.pop();
  drain(l, c);
}

void stream_op(br_loop *l, Op *op) {
  br_stream *st = op->stream;
  Conn *c = st->conn ? lookup(l, st->conn) : nullptr;
  Slot *s = c ? c->http.slots.find(st->seq) : nullptr;
  if (!s || s->state != Slot::kStream || s->stream != st) {  // the connection or answer is gone
    if (op->kind == Op::kData) chunk_done(l, op);
    else op_free(op);
    return;
  }
  bool ready = s == &c->http.slots.front() && !s->op;
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
  op_free(op);
}

}  // namespace br
