// conn.cc — see conn.h: the socket side of a connection, whatever protocol it speaks.
#include "conn.h"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "loop.h"
#include "sys.h"
#include "uring.h"
#include "ws_frame.h"

namespace br {
namespace {

constexpr size_t kReadRoom = 4096;       // free bytes wanted before a read
constexpr uint32_t kCloseWaitMs = 2000;  // how long our close frame waits for the client's

// The timeout that applies to c now, re-armed on progress.
void update_deadline(br_loop *l, Conn *c, bool progressed) {
  const br_config &cfg = l->app->cfg;
  if (c->ws.kind) {  // WebSocket: any traffic, or output still draining, keeps it open
    uint32_t idle = l->app->targets[c->ws.target].ws_idle_ms;
    if (c->ws.sent_close && idle > kCloseWaitMs) idle = kCloseWaitMs;  // the answer is due now
    if (c->out.empty() || progressed || !c->deadline) c->deadline = l->now_ms + idle;
    return;
  }
  if (!c->out.empty()) {
    if (progressed || !c->deadline) c->deadline = l->now_ms + cfg.idle_timeout_ms;
  } else if (c->http.slots.count || c->in_batch) {
    c->deadline = 0;  // the embedder is answering
  } else if (c->parsed < c->in.len || c->http.in_chunked) {
    if (!c->http.partial) {  // a request started: its head must arrive in time (slowloris)
      c->http.partial = true;
      c->deadline = l->now_ms + cfg.header_timeout_ms;
    }
  } else {
    c->http.partial = false;
    c->deadline = l->now_ms + cfg.idle_timeout_ms;
  }
}

// Closes c once it owes nothing and has nothing more to read.
void maybe_finish(br_loop *l, Conn *c) {
  if (c->dead || c->http.slots.count || c->in_batch || !c->out.empty()) return;
  if (c->close_after || c->read_closed || l->stopping) destroy(l, c);
}

// Room to take more input: not too many answers owed, not too many bytes unsent.
bool has_room(br_loop *l, Conn *c) {
  return c->http.slots.count < kMaxSlots && c->out.bytes() < l->app->cfg.send_buffer;
}

// After output drained or answers arrived: parse what is buffered, resume reading, or close.
// Inlined into both of its callers (flush_conn and after_flush), as it was into its one.
BR_INLINE_INTO_STEP void after_output(br_loop *l, Conn *c, bool progressed) {
  if (c->dead) return;
  if (has_room(l, c)) {
    process(l, c);
    if (!c->dead && !c->close_after && !c->read_closed && !l->stopping && has_room(l, c))
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
    if (w > 0) bump(l->stats.sends);
    bool pending = !c->out.empty();
    if (pending != c->want_write) {
      c->want_write = pending;
      update_events(l, c);
    }
  }
  after_output(l, c, w > 0);
  if (!c->dead && c->ws.kind == kWsEvents && !c->ws.reported) ws_report_backlog(l, c);
}

// Makes room for a read: drops consumed bytes, then grows up to what one request (or message)
// may need. False when one request alone fills the limit; c has then been failed.
bool make_room(br_loop *l, Conn *c) {
  Buffer &in = c->in;
  if (c->parsed == in.len) {
    in.len = c->parsed = 0;
    if (c->ws.kind && in.cap > 4 * kInitialIn) {  // one large message must not pin its buffer
      in.release();
      in.reserve(kInitialIn);
    }
  } else if (c->parsed && (in.cap - in.len < kReadRoom || c->need > in.cap - c->parsed)) {
    memmove(in.data, in.data + c->parsed, in.len - c->parsed);
    in.len -= c->parsed;
    c->parsed = 0;  // chunk offsets are relative to the request start: still valid
  }
  if (in.cap - in.len >= kReadRoom && c->need <= in.cap) return true;
  const br_config &cfg = l->app->cfg;
  size_t max = c->ws.kind ? size_t(l->app->targets[c->ws.target].ws_max) + 65536
                          : size_t(cfg.max_uri) + cfg.max_header_bytes + cfg.max_body + 65536;
  size_t want = c->need > in.cap ? c->need : in.cap * 2;
  if (want > max) want = max;
  if (want > in.cap) in.reserve(want - in.len);
  if (in.cap > in.len) return true;
  if (c->ws.kind) ws_fail(l, c, ws::kTooBig);
  else fail(l, c, 413);
  return false;
}

}  // namespace

void update_events(br_loop *l, Conn *c) {
  if (l->ur) return uring_update(l, c);
  struct epoll_event ev = {};
  ev.events = (c->reading ? EPOLLIN : 0u) | (c->want_write ? EPOLLOUT : 0u);
  ev.data.ptr = c;
  // Fails only without kernel memory (ENOMEM): a socket we can no longer watch is closed.
  if (epoll_ctl(l->ep, EPOLL_CTL_MOD, c->fd, &ev) < 0) destroy(l, c);
}

void destroy(br_loop *l, Conn *c) {
  if (c->dead) return;
  if (c->ws.kind) ws_closed(l, c);  // every OPEN gets its CLOSE
  c->dead = true;
  if (l->ur) uring_forget(l, c);  // its requests on the ring hold the socket open
  close(c->fd);  // also leaves the epoll set; nothing to do about an error of close
  c->out.drop([l](Op *op) { chunk_done(l, op); });
  release_slots(l, c);
  l->app->conns.fetch_sub(1);
  l->live--;
  l->dead.push_back(c);
}

void after_flush(br_loop *l, Conn *c, bool progressed) {
  after_output(l, c, progressed);
  if (!c->dead && c->ws.kind == kWsEvents && !c->ws.reported) ws_report_backlog(l, c);
}

void on_readable(br_loop *l, Conn *c) {
  if (!c->reading) return;
  if (!make_room(l, c)) return;
  Buffer &in = c->in;
  ssize_t n = sys::recv(c->fd, in.data + in.len, in.cap - in.len);
  if (n > 0) {
    bump(l->stats.reads);
    in.len += size_t(n);
    process(l, c);
    // A body still arriving re-arms the request timeout on each read; a head does not.
    if (c->http.in_chunked || (c->parsed < in.len && c->need)) c->http.partial = false;
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

void flush_dirty(br_loop *l) {
  l->spare.clear();
  while (!l->dirty.empty()) {
    l->flushing.swap(l->dirty);  // both keep their capacity: no allocation per step
    for (Conn *c : l->flushing) {
      c->dirty = false;
      if (c->dead) continue;
      if (c->in_batch) {  // its answers are in the embedder's hands: they leave together
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

}  // namespace br
