// batch.cc — see batch.h.
#include "batch.h"

#include <cstring>

#include "loop.h"
#include "slots.h"
#include "ws_conn.h"

namespace br {
namespace {

// Answers the embedder wrote for the requests of the batch it was handed.
void apply_answers(br_loop *l) {
  size_t n = l->reqs.size();
  for (size_t i = 0; i < n; i++) {
    Conn *c = l->req_conn[i];
    c->in_batch--;
    const br_response &res = l->resps[i];
    if (c->dead || (res.flags & BR_RES_DETACHED)) continue;
    Answer a{res.status, res.flags, l->head_arena.data + res.head_off, res.head_len,
             l->body_arena.data + res.body_off, res.body_len,
             (res.flags & BR_RES_BODY) ? res.body : nullptr, (res.flags & BR_RES_STREAM) ? res.stream : nullptr};
    respond(l, c, l->reqs[i].seq, a, nullptr);
    mark_dirty(l, c);
  }
  l->reqs.clear();
  l->req_conn.clear();
  l->req_hdr.clear();
  l->n_hdrs = 0;
}

// The embedder's sends written during the batch, after the batch's events are released.
void apply_sends(br_loop *l, br_batch *b) {
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

}  // namespace

void apply_batch(br_loop *l, br_batch *b) {
  apply_answers(l);
  apply_sends(l, b);
  l->wakes.clear();
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
  b->yield = 0;
  if (l->now_ms >= l->next_yield) {
    b->yield = 1;
    l->next_yield = l->now_ms + BR_YIELD_MS;
  }
  b->ws = l->ws_events.data();
  b->n_ws = uint32_t(l->ws_events.size());
  b->ws_arena = l->ws_arena.data;
  b->ws_cap = l->ws_arena.cap;
  b->ws_used = 0;
  b->ws_posted_applied = l->ws_posted_applied;
}

}  // namespace br

extern "C" void br_loop_grow(br_loop *l, br_batch *b, int which, uint64_t used, uint64_t need) {
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
