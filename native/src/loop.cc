// loop.cc — the event loop: br_loop_step (apply the embedder's answers, flush, wait, read, and
// hand over one batch), accepting, the timeout sweep, shutdown, and the loop's life cycle.
#include "loop.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "batch.h"
#include "inbox.h"
#include "listener.h"
#include "slots.h"
#include "sys.h"
#include "uring.h"

namespace br {
namespace {

constexpr uintptr_t kListenerTag = 1, kWakeTag = 2;  // epoll data of the two fds that are no Conn
constexpr int kAcceptBurst = 256;  // connections accepted per readiness, so reads are not starved
constexpr size_t kArena = size_t(64) << 10;  // each batch arena to start with

// Over the connection limit: a best-effort 503, and the client is told, not left hanging.
void refuse(br_loop *l, int fd) {
  const Buffer &t = l->app->e503->tmpl;
  ssize_t ignored = send(fd, t.data, t.len, MSG_NOSIGNAL | MSG_DONTWAIT);  // best effort: closing anyway
  (void)ignored;
  close(fd);
}

// A Conn for fd, from the pool when one is there, watched by epoll; null if epoll refused it.
Conn *adopt(br_loop *l, int fd) {
  Conn *c = pooled_conn(l);
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.ptr = c;
  if (epoll_ctl(l->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
    l->pool.push_back(c);
    return nullptr;
  }
  enter_conn(l, c, fd);
  return c;
}

void on_accept(br_loop *l) {
  for (int i = 0; i < kAcceptBurst; i++) {
    int fd = accept4(l->lfd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or out of descriptors: retried on the next readiness
    if (l->app->conns.fetch_add(1) >= l->app->cfg.max_conns) {
      l->app->conns.fetch_sub(1);
      refuse(l, fd);
      continue;
    }
    int one = 1;
    // A socket that takes no TCP_NODELAY or no place in the epoll set is dropped like a failed
    // accept: the server would answer it late or never.
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0 || !adopt(l, fd)) {
      l->app->conns.fetch_sub(1);
      close(fd);
    }
  }
}

// The shortest timeout decides how often deadlines are checked: often enough to be on time
// within a quarter of it, never more than once a second nor less than every 10 ms.
uint64_t sweep_interval(const br_app *app) {
  uint32_t shortest = app->cfg.header_timeout_ms < app->cfg.idle_timeout_ms ? app->cfg.header_timeout_ms
                                                                            : app->cfg.idle_timeout_ms;
  for (const Target &t : app->targets)
    if (t.ws && t.ws_idle_ms < shortest) shortest = t.ws_idle_ms;
  return shortest / 4 < 10 ? 10 : shortest / 4 > 1000 ? 1000 : shortest / 4;
}

// The loop's clocks, the epoll set and the wake eventfd; 0, or the errno of the call that failed.
int open_loop_fds(br_loop *l) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) < 0 || clock_gettime(CLOCK_REALTIME_COARSE, &ts) < 0)
    return errno;
  l->ep = epoll_create1(EPOLL_CLOEXEC);
  if (l->ep < 0) return errno;
  l->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (l->efd < 0) return errno;
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  ev.data.u64 = kListenerTag;
  if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->lfd, &ev) < 0) return errno;
  ev.data.u64 = kWakeTag;
  if (epoll_ctl(l->ep, EPOLL_CTL_ADD, l->efd, &ev) < 0) return errno;
  return 0;
}

// Handles what one epoll_wait returned; -1 on a fatal error of the wake eventfd.
int handle_events(br_loop *l, const struct epoll_event *events, int n) {
  for (int i = 0; i < n; i++) {
    uint64_t tag = events[i].data.u64;
    if (tag == kListenerTag) {
      if (!l->stopping) on_accept(l);
      continue;
    }
    if (tag == kWakeTag) {
      if (drain_inbox(l) < 0) return -1;
      begin_stop(l, nullptr);
      continue;
    }
    auto *c = static_cast<Conn *>(events[i].data.ptr);
    if (c->dead) continue;
    uint32_t e = events[i].events;
    if (e & EPOLLIN) on_readable(l, c);
    if (!c->dead && (e & EPOLLOUT)) mark_dirty(l, c);
    if (!c->dead && (e & (EPOLLERR | EPOLLHUP)) && !(e & EPOLLIN)) destroy(l, c);
  }
  return 0;
}

}  // namespace

// The loop's clock: once per wake, coarse clocks (no syscall through the vDSO). clock_gettime
// fails only for a clock the kernel lacks (or bad memory): the two clocks are checked once in
// br_loop_new, so the calls on the hot path need no check.
void tick(br_loop *l) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  l->now_ms = uint64_t(ts.tv_sec) * 1000 + uint64_t(ts.tv_nsec) / 1000000;
  (void)clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  l->date.update(ts.tv_sec);
}

Conn *pooled_conn(br_loop *l) {
  if (l->pool.empty()) return new Conn();
  Conn *c = l->pool.back();
  l->pool.pop_back();
  return c;
}

void enter_conn(br_loop *l, Conn *c, int fd) {
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
}

void reap(br_loop *l) {
  for (Conn *c : l->dead) {
    l->table[c->idx] = nullptr;
    l->free_idx.push_back(c->idx);
    Buffer in = c->in;
    in.len = 0;
    in.shrink(size_t(64) << 10);  // one large request does not pin its buffer in the pool
    std::vector<Slot> slots;
    slots.swap(c->http.slots.ring);
    c->out.release();
    *c = Conn();
    c->in = in;
    c->http.slots.ring.swap(slots);
    l->pool.push_back(c);
  }
  l->dead.clear();
}

void sweep(br_loop *l) {
  for (Conn *c : l->table) {
    if (!c || c->dead || !c->deadline || l->now_ms < c->deadline) continue;
    if (c->http.partial && !c->http.slots.count && c->out.empty()) {  // a request too slow to arrive
      write_static(c->out, *l->app->e408, kReqClose, true, l->date);
      c->out.flush(c->fd, [l](Op *op) { chunk_done(l, op); });
    }
    destroy(l, c);
  }
}

void begin_stop(br_loop *l, void (*before_close)(br_loop *)) {
  int req = l->stop_req.load();
  if (!req) return;
  if (!l->stopping) {
    l->stopping = true;
    if (before_close) before_close(l);
    close(l->lfd);  // also leaves the epoll set
    l->lfd = -1;
    for (Conn *c : l->table) {
      if (!c || c->dead) continue;
      set_reading(l, c, false);  // finish what was read; read nothing more
      if (c->dead) continue;
      if (c->ws.kind) ws_going_away(l, c);
      mark_dirty(l, c);
    }
  }
  if (req == 2)
    for (Conn *c : l->table)
      if (c && !c->dead) destroy(l, c);
}

void own(br_loop *l) {
  if (l->owner.load(std::memory_order_acquire) == kOwnerLoop) return;  // it never gave it up
  for (int spins = 0;; spins++) {
    int free = kOwnerFree;
    if (l->owner.compare_exchange_weak(free, kOwnerLoop, std::memory_order_acquire)) return;
    // A guest applies one answer and sends it: microseconds, unless its thread lost the CPU
    // (a server on one core), which yielding gives back.
    if (spins >= 64) sched_yield();
  }
}

bool guest_enter(br_loop *l) {
  int free = kOwnerFree;
  if (!l->owner.compare_exchange_strong(free, kOwnerGuest, std::memory_order_acquire)) return false;
  tick(l);  // the loop may have idled for a while: the Date header and deadlines need the time
  return true;
}

void guest_leave(br_loop *l) {
  // Answers sent may let a connection parse requests it had buffered (flush_conn): the loop
  // hands those to the embedder at its next step.
  bool work = !l->reqs.empty() || !l->wakes.empty() || !l->ws_events.empty();
  l->owner.store(kOwnerFree, std::memory_order_release);
  if (work) wake(l);
}

namespace {

// One iteration (bindrace.h). ready < 0: the step polls, blocking when wait is set. ready >= 0:
// the embedder polled into l->events itself and got ready events; they are the step's only
// poll, so a step they do not fill returns BR_IDLE and the embedder's next wait polls again.
// With none (ready 0: the step that sends a batch's answers before the embedder waits) there
// is nothing to handle and no clock to read.
int step(br_loop *l, br_batch *b, int wait, int ready) {
  own(l);
  apply_batch(l, b);
  for (bool idle = ready == 0;;) {
    flush_dirty(l);
    if (!l->reqs.empty() || !l->wakes.empty() || !l->ws_events.empty()) break;  // for the embedder
    reap(l);
    if (l->stopping && l->live == 0) {
      fill_batch(l, b);
      b->done = 1;
      return 0;
    }
    if (idle) {
      l->owner.store(kOwnerFree, std::memory_order_release);  // guests may answer meanwhile
      return BR_IDLE;
    }
    int n = ready;
    if (n < 0) {
      n = sys::epoll_wait(l->ep, l->events, BR_MAX_EVENTS, wait ? br_loop_timer_ms(l) : 0);
      if (n < 0 && errno != EINTR) return -1;
    }
    if (n > 0) bump(l->stats.wakeups);
    tick(l);
    if (handle_events(l, l->events, n) < 0) return -1;
    if (l->now_ms >= l->next_sweep) {
      sweep(l);
      l->next_sweep = l->now_ms + l->sweep_every;
    }
    // Without wait, one empty poll ends the step once its timers and reaping are done.
    idle = ready >= 0 || (!wait && n <= 0);
  }
  bump(l->stats.batches);
  fill_batch(l, b);
  return 0;
}

}  // namespace

}  // namespace br

extern "C" {

br_loop *br_loop_new(br_app *app, const char *host, int port, int *err) {
  int fd, bound;
  if (int e = br::open_listener(app, host, port, &fd, &bound)) {
    if (err) *err = e;
    return nullptr;
  }
  auto *l = new br_loop();
  l->app = app;
  l->lfd = fd;
  l->port = bound;
  int e = br::open_loop_fds(l);
  if (!e) e = br::choose_backend(l);
  if (e) {
    br_loop_free(l);
    if (err) *err = e;
    return nullptr;
  }
  app->group_port.store(l->port);
  l->head_arena.reserve(br::kArena);
  l->body_arena.reserve(br::kArena);
  l->ws_arena.reserve(br::kArena);
  l->sweep_every = br::sweep_interval(app);
  br::tick(l);
  l->next_sweep = l->now_ms + l->sweep_every;
  return l;
}

int br_loop_port(br_loop *l) { return l->port; }

int br_loop_step(br_loop *l, br_batch *b, int wait) {
  // Chosen once, in br_loop_new. An io_uring loop never gives its state to guests (it keeps
  // owner at kOwnerLoop), so detached answers reach it through the inbox.
  if (l->ur) return br::uring_step(l, b, wait);
  return br::step(l, b, wait, -1);
}

int br_loop_step_ready(br_loop *l, br_batch *b, int ready) {
  uint64_t before = l->stats.requests.load(std::memory_order_relaxed);
  // io_uring: the wait saw the ring's fd readable; its completions are reaped, not polled.
  int r = l->ur ? br::uring_step(l, b, 0) : br::step(l, b, 0, ready < 0 ? 0 : ready);
  bool answered = r == BR_IDLE && l->stats.requests.load(std::memory_order_relaxed) != before;
  return answered ? BR_ANSWERED : r;
}

void *br_loop_events(br_loop *l) { return l->events; }

int br_loop_fd(br_loop *l) { return l->ep; }

int br_loop_timer_ms(br_loop *l) { return int(l->next_sweep > l->now_ms ? l->next_sweep - l->now_ms : 0); }

void br_loop_stats(br_loop *l, br_stats *out) {
  constexpr auto r = std::memory_order_relaxed;
  *out = br_stats{l->stats.wakeups.load(r), l->stats.reads.load(r), l->stats.requests.load(r),
                  l->stats.sends.load(r), l->stats.batches.load(r)};
}

void br_loop_free(br_loop *l) {
  if (l->ur) br::uring_free(l);
  for (br::Conn *c : l->table)
    if (c && !c->dead) br::destroy(l, c);
  l->wakes.clear();
  br::reap(l);
  for (br::Op *op : l->inbox) br::op_free(op);
  for (br::Conn *c : l->pool) {
    c->in.release();
    c->out.release();
    delete c;
  }
  if (l->lfd >= 0) close(l->lfd);
  if (l->ep >= 0) close(l->ep);
  if (l->efd >= 0) close(l->efd);
  l->hdrs.release();
  l->head_arena.release();
  l->body_arena.release();
  l->ws_arena.release();
  delete l;
}

}  // extern "C"
