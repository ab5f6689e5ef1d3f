// uring_conn.cc — the io_uring loop's requests and their completions: the multishot accept, a
// connection's multishot recv into provided buffers, its sends, its poll for output room, the
// wake eventfd's poll, and cancels. See uring.h.
#include "uring_loop.h"

#ifdef BR_HAVE_URING
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "http_conn.h"
#include "inbox.h"
#include "loop.h"
#include "slots.h"
#include "uring.h"
#include "ws_conn.h"

namespace br {
namespace {

uint64_t u_conn_ud(Kind k, const Conn *c) { return ud(k, c->gen, c->idx); }

// The connection a completion names, open or closed but not yet reused; null otherwise.
Conn *u_conn_of(br_loop *l, uint64_t user_data) {
  auto idx = uint32_t(user_data);
  if (idx >= l->table.size()) return nullptr;
  Conn *c = l->table[idx];
  return c && (c->gen & 0xffffff) == ((user_data >> 32) & 0xffffff) ? c : nullptr;
}

void u_arm_recv(br_loop *l, Conn *c) {
  unsigned slot;
  io_uring_sqe *e = l->ur->ring.sqe(&slot);
  if (!e) {  // the submission queue is full: armed on the next iteration
    l->ur->rearm.push_back(c->id);
    return;
  }
  e->opcode = IORING_OP_RECV;
  e->fd = c->fd;
  e->ioprio = IORING_RECV_MULTISHOT;
  e->flags = IOSQE_BUFFER_SELECT;
  e->buf_group = Ring::kBufGroup;
  e->user_data = u_conn_ud(kRecv, c);
  c->ur_recv = 1;
}

void u_arm_poll(br_loop *l, Conn *c) {
  unsigned slot;
  io_uring_sqe *e = l->ur->ring.sqe(&slot);
  if (!e) {  // no SQE: the connection tries its send again next iteration instead
    mark_dirty(l, c);
    return;
  }
  e->opcode = IORING_OP_POLL_ADD;
  e->fd = c->fd;
  e->poll32_events = POLLOUT;
  e->user_data = u_conn_ud(kPollOut, c);
  c->ur_poll = true;
}

// A Conn for an accepted socket (loop.cc's adopt, with a recv on the ring for epoll's watch).
void u_adopt(br_loop *l, int fd) {
  Conn *c = pooled_conn(l);
  enter_conn(l, c, fd);
  u_arm_recv(l, c);
}

void u_on_accept(br_loop *l, const io_uring_cqe &e) {
  if (!(e.flags & IORING_CQE_F_MORE)) l->ur->accept_armed = false;
  if (e.res < 0) return;  // out of descriptors, or cancelled: re-armed at the next sweep
  int fd = e.res;
  if (l->stopping) {
    close(fd);
    return;
  }
  if (l->app->conns.fetch_add(1) >= l->app->cfg.max_conns) {
    l->app->conns.fetch_sub(1);
    const Buffer &t = l->app->e503->tmpl;  // best effort, as epoll's refuse
    ssize_t ignored = send(fd, t.data, t.len, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)ignored;
    close(fd);
  } else {
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
      l->app->conns.fetch_sub(1);
      close(fd);
    } else {
      u_adopt(l, fd);
    }
  }
  // A multishot accept ends without an error only when the completion queue overflowed.
  if (!l->ur->accept_armed && !l->stopping) arm_accept(l);
}

// Room for n more bytes in c's receive buffer (conn.cc's make_room for a read of known size).
// False when one request (or message) alone fills the limit; c has then been failed.
bool u_room(br_loop *l, Conn *c, size_t n) {
  Buffer &in = c->in;
  if (c->parsed == in.len) {
    in.len = c->parsed = 0;
    if (c->ws.kind && in.cap > 4 * kInitialIn) {
      in.release();
      in.reserve(kInitialIn);
    }
  } else if (c->parsed && (in.cap - in.len < n || c->need > in.cap - c->parsed)) {
    memmove(in.data, in.data + c->parsed, in.len - c->parsed);
    in.len -= c->parsed;
    c->parsed = 0;
  }
  if (in.cap - in.len >= n) return true;
  const br_config &cfg = l->app->cfg;
  size_t max = c->ws.kind ? size_t(l->app->targets[c->ws.target].ws_max) + 65536
                          : size_t(cfg.max_uri) + cfg.max_header_bytes + cfg.max_body + 65536;
  if (in.len >= max) {
    if (c->ws.kind) ws_fail(l, c, ws::kTooBig);
    else fail(l, c, 413);
    return false;
  }
  in.reserve(n);
  return true;
}

// Bytes received for c (conn.cc's on_readable after its recv).
void u_take(br_loop *l, Conn *c, const char *p, size_t n) {
  if (!c->reading && (l->stopping || c->close_after)) return;  // read nothing more
  if (!u_room(l, c, n)) return;
  Buffer &in = c->in;
  memcpy(in.data + in.len, p, n);
  in.len += n;
  bump(l->stats.reads);
  if (!c->reading) return;  // paused: parsed once its output drains (after_flush)
  process(l, c);
  if (c->http.in_chunked || (c->parsed < in.len && c->need)) c->http.partial = false;
  if (!c->dead) mark_dirty(l, c);
}

void u_on_recv(br_loop *l, const io_uring_cqe &e) {
  Uring *u = l->ur;
  Conn *c = u_conn_of(l, e.user_data);
  bool buffer = e.flags & IORING_CQE_F_BUFFER;
  unsigned bid = e.flags >> IORING_CQE_BUFFER_SHIFT;
  if (c && !c->dead && c->in_batch) {
    // The embedder holds views into c's receive buffer: moving it now would break them, so
    // this completion (and its buffer) waits for the next step.
    u->deferred.push_back(e);
    if (buffer) u->held++;
    return;
  }
  if (c && !(e.flags & IORING_CQE_F_MORE)) c->ur_recv = 0;
  if (buffer) {
    if (c && !c->dead && e.res > 0) u_take(l, c, u->ring.buf(bid), size_t(e.res));
    u->ring.recycle(bid);
  }
  if (!c || c->dead) return;
  if (e.res == 0) {
    c->read_closed = true;
    set_reading(l, c, false);
    process(l, c);
    if (!c->dead) mark_dirty(l, c);
    return;
  }
  if (e.res == -ENOBUFS) {
    u->nobufs.push_back(c->id);  // re-armed once buffers are back (retry_pending)
    return;
  }
  if (e.res < 0 && e.res != -ECANCELED && e.res != -EINTR) return destroy(l, c);
  if (!c->ur_recv && c->reading && !c->read_closed) u_arm_recv(l, c);
}

// A send's result (conn.cc's flush_conn after its sendmsg).
void u_on_sent(br_loop *l, const io_uring_cqe &e) {
  l->ur->sends--;
  Conn *c = u_conn_of(l, e.user_data);
  if (!c) return;
  c->ur_send = false;
  if (c->dead) return;
  if (e.res < 0 && e.res != -EAGAIN && e.res != -EINTR) return destroy(l, c);
  size_t w = e.res > 0 ? size_t(e.res) : 0;
  if (w) {
    c->out.sent(w, [l](Op *op) { chunk_done(l, op); });
    bump(l->stats.sends);
  }
  bool pending = !c->out.empty();
  if (pending && w) {
    mark_dirty(l, c);  // more than one message held, or the socket took part: try again
  } else if (pending != c->want_write || (pending && !c->ur_poll)) {
    c->want_write = pending;  // full: wait for room (the poll is one-shot, so armed again)
    uring_update(l, c);
  }
  after_flush(l, c, w > 0);
}

// The submission queue is full even after a submit: send now, as the epoll loop does.
void u_send_now(br_loop *l, Conn *c) {
  ssize_t w = c->out.flush(c->fd, [l](Op *op) { chunk_done(l, op); });
  if (w < 0) return destroy(l, c);
  if (w > 0) bump(l->stats.sends);
  bool pending = !c->out.empty();
  if (pending != c->want_write || (pending && !c->ur_poll)) {
    c->want_write = pending;
    uring_update(l, c);
  }
  after_flush(l, c, w > 0);
}

void u_queue_send(br_loop *l, Conn *c) {
  Uring *u = l->ur;
  unsigned slot;
  io_uring_sqe *e = u->ring.sqe(&slot);
  if (!e) return u_send_now(l, c);
  SendRec &r = u->recs[slot];
  size_t bytes;
  r.msg = {};
  r.msg.msg_iov = r.iov;
  r.msg.msg_iovlen = size_t(c->out.gather(r.iov, kSendIov, &bytes));
  e->opcode = IORING_OP_SENDMSG;
  e->fd = c->fd;
  e->addr = uint64_t(uintptr_t(&r.msg));
  e->len = 1;
  e->msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT;  // never armed: done or -EAGAIN within the submit
  e->user_data = u_conn_ud(kSend, c);
  c->ur_send = true;
  u->sends++;
  // A quiet send: a small, whole answer on a connection that reads on. Its completion only
  // frees the queue, so a wait may ride on its submit (uring.cc).
  bool quiet = c->reading && !c->read_closed && !c->close_after && !c->ws.kind && !l->stopping &&
               bytes <= kQuietSend && c->out.whole_and_plain(kSendIov);
  if (!quiet) u->eventful_sends = true;
}

}  // namespace

void arm_accept(br_loop *l) {
  unsigned slot;
  io_uring_sqe *e = l->ur->ring.sqe(&slot);
  if (!e) return;  // the next sweep tries again
  e->opcode = IORING_OP_ACCEPT;
  e->fd = l->lfd;
  e->ioprio = IORING_ACCEPT_MULTISHOT;
  e->accept_flags = SOCK_NONBLOCK | SOCK_CLOEXEC;
  e->user_data = ud(kAccept, 0, 0);
  l->ur->accept_armed = true;
}

void arm_wake(br_loop *l) {
  unsigned slot;
  io_uring_sqe *e = l->ur->ring.sqe(&slot);
  if (!e) return;  // retry_pending tries again
  e->opcode = IORING_OP_POLL_ADD;
  e->fd = l->efd;
  e->poll32_events = POLLIN;
  e->len = IORING_POLL_ADD_MULTI;
  e->user_data = ud(kWake, 0, 0);
  l->ur->wake_armed = true;
}

void cancel(br_loop *l, uint64_t user_data) {
  unsigned slot;
  io_uring_sqe *e = l->ur->ring.sqe(&slot);
  if (!e) {
    l->ur->cancels.push_back(user_data);
    return;
  }
  e->opcode = IORING_OP_ASYNC_CANCEL;
  e->fd = -1;
  e->addr = user_data;
  e->user_data = ud(kCancel, 0, 0);
}

void uring_update(br_loop *l, Conn *c) {
  if (c->dead) return;
  if (c->reading && !c->read_closed) {
    if (!c->ur_recv) u_arm_recv(l, c);  // one being cancelled re-arms when it ends (on_recv)
  } else if (c->ur_recv == 1) {
    cancel(l, u_conn_ud(kRecv, c));
    c->ur_recv = 2;
  }
  if (c->want_write && !c->ur_poll) u_arm_poll(l, c);
}

void uring_forget(br_loop *l, Conn *c) {
  if (c->ur_recv == 1) cancel(l, u_conn_ud(kRecv, c));
  if (c->ur_poll) cancel(l, u_conn_ud(kPollOut, c));
  c->ur_recv = 2;
}

int reap_cq(br_loop *l) {
  Ring &r = l->ur->ring;
  unsigned head = *r.cq_head, tail = __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE);
  int n = 0, err = 0;
  for (; head != tail; head++, n++) {
    io_uring_cqe e = r.cqes[head & r.cq_mask];
    switch (Kind(e.user_data >> 56)) {
      case kAccept: u_on_accept(l, e); break;
      case kWake:
        if (!(e.flags & IORING_CQE_F_MORE)) l->ur->wake_armed = false;
        if (drain_inbox(l) < 0) err = -1;
        l->ur->wake_seen = true;
        break;
      case kRecv: u_on_recv(l, e); break;
      case kSend: u_on_sent(l, e); break;
      case kPollOut: {
        Conn *c = u_conn_of(l, e.user_data);
        if (!c) break;
        c->ur_poll = false;
        if (!c->dead) mark_dirty(l, c);
        break;
      }
      case kCancel: break;
    }
  }
  __atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
  r.publish_bufs();
  if (!l->ur->wake_armed && l->ur->started) arm_wake(l);
  return err ? err : n;
}

void replay_deferred(br_loop *l) {
  Uring *u = l->ur;
  if (u->deferred.empty()) return;
  u->replaying.swap(u->deferred);
  u->held = 0;
  for (const io_uring_cqe &e : u->replaying) u_on_recv(l, e);  // may hold some back again
  u->replaying.clear();
  u->ring.publish_bufs();
}

void retry_pending(br_loop *l) {
  Uring *u = l->ur;
  if (!u->cancels.empty()) {
    std::vector<uint64_t> due;
    due.swap(u->cancels);
    for (uint64_t c : due) cancel(l, c);
  }
  // Buffers come back as completions are reaped; with all of them held, the next step's
  // replay frees them (no resubmit loop on -ENOBUFS).
  if (!u->nobufs.empty() && u->held < u->ring.nbufs) {
    u->rearm.insert(u->rearm.end(), u->nobufs.begin(), u->nobufs.end());
    u->nobufs.clear();
  }
  if (!u->rearm.empty()) {
    std::vector<uint64_t> due;
    due.swap(u->rearm);
    for (uint64_t id : due) {
      Conn *c = lookup(l, id);
      if (c && !c->ur_recv && c->reading && !c->read_closed) u_arm_recv(l, c);
    }
  }
  if (!u->wake_armed && u->started) arm_wake(l);
}

void queue_sends(br_loop *l) {
  l->spare.clear();
  while (!l->dirty.empty()) {
    l->flushing.swap(l->dirty);
    for (Conn *c : l->flushing) {
      c->dirty = false;
      if (c->dead) continue;
      if (c->in_batch || c->ur_send) {  // answers with the embedder, or a send not reaped yet
        c->dirty = true;
        l->spare.push_back(c);
        continue;
      }
      if (c->out.empty()) after_flush(l, c, false);
      else u_queue_send(l, c);
    }
    l->flushing.clear();
  }
  l->dirty.swap(l->spare);
}

}  // namespace br
#endif
