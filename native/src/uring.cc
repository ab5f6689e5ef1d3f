// uring.cc — see uring.h: choosing the backend, and the io_uring loop's step, wait and timers.
// The requests on the ring, one connection's side of them, are in uring_conn.cc.
#include "uring.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>

#include "batch.h"
#include "inbox.h"
#include "loop.h"
#include "response.h"
#include "slots.h"
#include "uring_loop.h"

namespace br {
namespace {

std::mutex note_mu;
char note[320] = "epoll";  // the last choice of br_loop_new, for br_loop_backend_note
bool auto_said = false;

void u_set_note(const char *s) {
  std::lock_guard<std::mutex> g(note_mu);
  (void)snprintf(note, sizeof note, "%s", s);
}

#ifdef BR_HAVE_URING
// A number from the environment (a test's knob), or def when unset or out of [lo, hi].
unsigned u_env_num(const char *name, unsigned def, unsigned lo, unsigned hi) {
  const char *v = getenv(name);
  if (!v || !*v) return def;
  char *end = nullptr;
  unsigned long n = strtoul(v, &end, 10);
  return *end || n < lo || n > hi ? def : unsigned(n);
}

// What the kernel says about io_uring for unprivileged use (kernel.io_uring_disabled, 6.6+).
void u_disabled_sysctl(char *out, size_t n) {
  *out = 0;
  FILE *f = fopen("/proc/sys/kernel/io_uring_disabled", "re");
  if (!f) return;
  char line[16] = {};
  if (fgets(line, sizeof line, f) && line[0] != '0')
    (void)snprintf(out, n, " (kernel.io_uring_disabled=%.*s)", int(strcspn(line, "\n")), line);
  (void)fclose(f);
}

// Moves l onto io_uring: 0, or the errno with why filled.
int uring_open(br_loop *l, char *why, size_t n) {
  const char *wait = getenv("BINDRACE_URING_WAIT");
  bool poll_wait = wait && !strcmp(wait, "poll");
  if (wait && *wait && !poll_wait && strcmp(wait, "enter") != 0) {
    (void)snprintf(why, n, "BINDRACE_URING_WAIT=%s: unknown wait (enter or poll)", wait);
    return EINVAL;
  }
  // Deferred task work unless BINDRACE_URING_DEFER=0; never with the poll wait, which waits
  // outside io_uring_enter where deferred completions cannot wake it.
  const char *dv = getenv("BINDRACE_URING_DEFER");
  if (dv && *dv && strcmp(dv, "0") != 0 && strcmp(dv, "1") != 0) {
    (void)snprintf(why, n, "BINDRACE_URING_DEFER=%s: unknown value (1 or 0)", dv);
    return EINVAL;
  }
  bool defer = !(dv && !strcmp(dv, "0")) && !poll_wait;
  auto *u = new Uring();
  unsigned entries = u_env_num("BINDRACE_URING_ENTRIES", 1024, 4, 32768);
  unsigned nbufs = u_env_num("BINDRACE_URING_BUFS", 256, 1, 32768);
  unsigned p2 = 1;
  while (p2 < nbufs) p2 <<= 1;
  if (int e = u->ring.open(entries, p2, 16384, defer, why, n)) {
    if (e == EPERM || e == EACCES) {
      char sys[64];
      u_disabled_sysctl(sys, sizeof sys);
      size_t len = strlen(why);
      (void)snprintf(why + len, n - len, "%s", *sys ? sys : " (a seccomp profile or a security module refused it)");
    }
    u->ring.close();
    delete u;
    return e;
  }
  u->ring.poll_wait = poll_wait;
  u->recs.resize(u->ring.sq_entries);
  // The embedder's poller waits on l->ep: from now on it holds the ring alone, which polls
  // readable when completions are ready. The listener and the wake eventfd are the ring's.
  struct epoll_event ev = {};
  ev.events = EPOLLIN;
  if (epoll_ctl(l->ep, EPOLL_CTL_DEL, l->lfd, &ev) < 0 || epoll_ctl(l->ep, EPOLL_CTL_DEL, l->efd, &ev) < 0 ||
      epoll_ctl(l->ep, EPOLL_CTL_ADD, u->ring.fd, &ev) < 0) {
    int e = errno;
    (void)snprintf(why, n, "epoll_ctl of the ring: %s", strerror(e));
    u->ring.close();
    delete u;
    return e;
  }
  // The accept and the wake poll are armed by the first step: a multishot request's
  // completions are task work of the thread that armed it, and the loop's thread is the one
  // that enters the ring (a Go embedder creates loops on another thread than it steps them).
  l->ur = u;
  return 0;
}
#else
int uring_open(br_loop *, char *why, size_t n) {
  (void)snprintf(why, n, "this core was built without <linux/io_uring.h>");
  return ENOSYS;
}
#endif

}  // namespace

int choose_backend(br_loop *l) {
  const char *v = getenv("BINDRACE_LOOP");
  if (!v || !*v || !strcmp(v, "epoll")) {
    u_set_note("epoll");
    return 0;
  }
  bool want = !strcmp(v, "uring") || !strcmp(v, "io_uring");
  if (!want && strcmp(v, "auto") != 0) {
    char m[160];
    (void)snprintf(m, sizeof m, "BINDRACE_LOOP=%s: unknown loop (epoll, uring or auto)", v);
    u_set_note(m);
    return EINVAL;
  }
  char why[256];
  int e = uring_open(l, why, sizeof why);
  if (!e) {
#ifdef BR_HAVE_URING
    char m[320];
    const Ring &r = l->ur->ring;
    if (r.deferred) (void)snprintf(m, sizeof m, "io_uring (deferred task work)");
    else if (*r.plain_why) (void)snprintf(m, sizeof m, "io_uring (%s)", r.plain_why);
    else (void)snprintf(m, sizeof m, "io_uring");
    u_set_note(m);
#endif
    return 0;
  }
  char m[320];
  if (want) {
    (void)snprintf(m, sizeof m, "BINDRACE_LOOP=%s: io_uring refused: %s", v, why);
    u_set_note(m);
    return e;
  }
  (void)snprintf(m, sizeof m, "epoll (BINDRACE_LOOP=auto: io_uring refused: %s)", why);
  u_set_note(m);
  std::lock_guard<std::mutex> g(note_mu);
  if (!auto_said) {
    auto_said = true;
    (void)fprintf(stderr, "bindrace: BINDRACE_LOOP=auto: io_uring refused (%s); using epoll\n", why);
  }
  return 0;
}

#ifdef BR_HAVE_URING
namespace {

// Closes every connection past its deadline (loop.cc's sweep); re-arms a failed accept.
void u_sweep(br_loop *l) {
  sweep(l);
  if (!l->ur->accept_armed && !l->stopping) arm_accept(l);
}

// The ring's accept is cancelled before the listener closes (begin_stop's hook).
void u_cancel_accept(br_loop *l) {
  if (l->ur->accept_armed) cancel(l, ud(kAccept, 0, 0));
}

constexpr int kRideWaitMs = 10;  // the longest wait with sends in its submit (u_pump)

// Submits what is queued and reaps completions, waiting up to timeout_ms (-1: not at all) for
// one. Returns the completions handled, or -1 on a fatal error.
int u_pump(br_loop *l, int timeout_ms) {
  Uring *u = l->ur;
  // On a deferred ring completions appear only while this thread is in the kernel: with nothing
  // to submit, no wait and no task work queued, an enter would find nothing the ring does not
  // already show, so the completions are reaped without one.
  bool skip = timeout_ms < 0 && u->ring.deferred && !u->ring.pending() && !u->ring.work_pending();
  // A wait with quiet sends queued waits for one completion beyond theirs (each is posted
  // within the submit), and not long: a send taken only in part is followed up after it.
  bool ride = timeout_ms >= 0 && u->ring.pending();
  if (ride && timeout_ms > kRideWaitMs) timeout_ms = kRideWaitMs;
  int r = skip ? 0 : u->ring.enter(timeout_ms >= 0 ? u->sends + 1 : 0, timeout_ms);
  if (!u->ring.pending()) u->eventful_sends = false;
  if (r < 0 && r != -EINTR && r != -ETIME && r != -EBUSY && r != -EAGAIN) {
    errno = -r;
    return -1;
  }
  tick(l);
  int n = reap_cq(l);
  if (n < 0) return -1;
  // Sends finish within their submit (MSG_DONTWAIT), so an out queue is never read by the
  // kernel after it; a kernel that deferred one anyway is waited for here, before any queue
  // moves again.
  while (u->sends) {
    u->late_sends++;
    r = u->ring.enter(u->ring.pending() ? 0 : 1, -1);
    if (r < 0 && r != -EINTR && r != -EBUSY && r != -EAGAIN) {
      errno = -r;
      return -1;
    }
    int m = reap_cq(l);
    if (m < 0) return -1;
    n += m;
  }
  if (n > 0) bump(l->stats.wakeups);
  // The inbox and a stop are also looked at on every wake, not only on the eventfd's
  // completion: should that completion wait for another thread's task work, the next timed
  // wake (at most the sweep interval) still sees them. Two relaxed loads.
  if (!u->wake_seen && l->signaled.load(std::memory_order_relaxed) && drain_inbox(l) < 0) return -1;
  if (u->wake_seen || l->stop_req.load(std::memory_order_relaxed)) {
    u->wake_seen = false;
    begin_stop(l, u_cancel_accept);
  }
  if (l->now_ms >= l->next_sweep) {
    u_sweep(l);
    l->next_sweep = l->now_ms + l->sweep_every;
  }
  return n;
}

}  // namespace

int uring_step(br_loop *l, br_batch *b, int wait) {
  apply_batch(l, b);
  if (!l->ur->started) {
    // The first step's thread issues every request from now on (a deferred ring accepts no
    // other: io_uring_enter fails with EEXIST).
    if (int e = l->ur->ring.enable()) {
      errno = -e;
      return -1;
    }
    l->ur->started = true;
    if (!l->stopping) arm_accept(l);
    arm_wake(l);
  }
  replay_deferred(l);
  Uring *u = l->ur;
  u->embed[0] = 0, u->embed[1] = 1;
  for (bool polled_empty = false;;) {
    retry_pending(l);
    queue_sends(l);
    bool out = !l->reqs.empty() || !l->wakes.empty() || !l->ws_events.empty();
    bool queued = u->ring.pending() > 0;
    // Quiet sends and nothing else to do: the wait's own io_uring_enter submits them.
    bool ride = queued && !out && !u->eventful_sends && u->ring.deferred && !u->ring.work_pending() &&
                !u->ring.ready();
    if (!queued || ride) {
      if (out) break;  // for the embedder
      reap(l);
      if (l->stopping && l->live == 0) {
        u->ring.disable_registered();  // the loop's thread issues nothing more
        fill_batch(l, b);
        b->done = 1;
        return 0;
      }
      if (ride && !wait) {  // the embedder waits next (br_loop_uring_wait)
        u->ring.publish();
        u->embed[0] = u->ring.pending(), u->embed[1] = u->sends + 1;
        return BR_IDLE;
      }
      if (polled_empty) return BR_IDLE;
    }
    // One submission per iteration: the sends queued above, re-armed requests and cancels,
    // with the wait when there is nothing else to do.
    int n = u_pump(l, (!queued || ride) && !out && wait ? br_loop_timer_ms(l) : -1);
    if (n < 0) return -1;
    polled_empty = !wait && n == 0;
  }
  bump(l->stats.batches);
  fill_batch(l, b);
  return 0;
}

void uring_free(br_loop *l) {
  Uring *u = l->ur;
  for (const io_uring_cqe &e : u->deferred)
    if (e.flags & IORING_CQE_F_BUFFER) u->ring.recycle(e.flags >> IORING_CQE_BUFFER_SHIFT);
  u->ring.close();
  delete u;
  l->ur = nullptr;
}

}  // namespace br
#else
namespace br {
int uring_step(br_loop *, br_batch *, int) { return -1; }
void uring_update(br_loop *, Conn *) {}
void uring_forget(br_loop *, Conn *) {}
void uring_free(br_loop *) {}
}  // namespace br
#endif

extern "C" {

int br_loop_backend(br_loop *l) { return l->ur ? 1 : 0; }

int br_loop_uring_wait(br_loop *l, int timeout_ms, br_uring_wait *out) {
#ifdef BR_HAVE_URING
  if (!l->ur || !l->ur->ring.deferred) return -1;
  br::Uring *u = l->ur;
  u->wait_ts.tv_sec = timeout_ms / 1000;
  u->wait_ts.tv_nsec = (timeout_ms % 1000) * 1000000LL;
  u->wait_arg = {};
  u->wait_arg.ts = uint64_t(uintptr_t(&u->wait_ts));
  out->fd = u->ring.enter_fd();
  out->flags = IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG | u->ring.enter_flags();
  out->arg = &u->wait_arg;
  out->arg_size = sizeof u->wait_arg;
  out->embed = u->embed;
  return 0;
#else
  (void)l, (void)timeout_ms, (void)out;
  return -1;
#endif
}

const char *br_loop_backend_note(void) {
  static thread_local char copy[sizeof br::note];
  std::lock_guard<std::mutex> g(br::note_mu);
  memcpy(copy, br::note, sizeof copy);
  return copy;
}

}  // extern "C"
