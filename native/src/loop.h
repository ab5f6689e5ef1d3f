// loop.h — one epoll event loop per thread: its listener, its connections, the batch handed to
// the embedder, and the inbox other threads post to. The helpers below are the few every part
// of the core calls on its hot path, so they are inline.
#pragma once
#include <sys/epoll.h>

#include <atomic>
#include <mutex>
#include <vector>

#include "app.h"
#include "bindrace.h"
#include "buffer.h"
#include "conn.h"
#include "date_cache.h"
#include "op.h"

namespace br {
struct Uring;  // the io_uring backend's state (uring.h), when the loop runs on io_uring
// Running totals of the loop's work (br_stats). Only the loop thread writes them, so each count
// is a relaxed load and store, a plain add on x86 (no locked instruction on the hot path); any
// thread may read them while it runs.
struct LoopStats {
  std::atomic<uint64_t> wakeups{0}, reads{0}, requests{0}, sends{0}, batches{0};
};
inline void bump(std::atomic<uint64_t> &n) { n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
}  // namespace br

struct br_loop {
  br_app *app = nullptr;
  int ep = -1, lfd = -1, efd = -1, port = 0;

  std::vector<br::Conn *> table;  // by connection index
  std::vector<uint32_t> free_idx;
  std::vector<br::Conn *> pool;   // closed connections kept with their buffers for reuse
  uint32_t live = 0, next_gen = 1;

  br::DateCache date;
  uint64_t now_ms = 0, next_sweep = 0, sweep_every = 1000;
  uint64_t next_yield = 0;  // when the next batch carries br_batch.yield

  // The batch (batch.h): requests for the embedder and where the embedder writes its answers.
  std::vector<br_request> reqs;
  std::vector<br_response> resps;
  std::vector<br::Conn *> req_conn;
  std::vector<uint32_t> req_hdr;  // first header index of each request
  br::Buffer hdrs;                // br_header array, grown in whole requests
  size_t n_hdrs = 0;
  br::Buffer head_arena, body_arena;
  std::vector<uint64_t> wakes;
  std::vector<br_ws_event> ws_events;  // WebSocket events of the batch, in order
  std::vector<br::Conn *> ws_conn;     // the connection of each event
  br::Buffer ws_arena;                 // the embedder's sends (br_ws_out records)
  uint64_t ws_posted_applied = 0;      // br_ws_send/br_ws_close ops applied (br_batch)

  std::vector<br::Conn *> dirty, flushing, spare, dead;

  // The inbox (inbox.h), shared with other threads.
  std::mutex mu;
  std::vector<br::Op *> inbox, work;
  std::atomic<bool> signaled{false};
  std::atomic<int> stop_req{0};  // 1 graceful, 2 force
  bool stopping = false;

  // Who may touch the loop's state (below: guests). The loop's thread from the start of a step
  // until a step returns BR_IDLE, the batch's time in the embedder included; nobody while the
  // idle loop waits in the embedder's poller; or a guest in that time: another thread that ends
  // a detached response in place (inbox.cc) instead of posting it and waking the loop.
  std::atomic<int> owner{0};  // br::kOwner*
  // The batch's requests, wakes and events were handed to the embedder (fill_batch) and are
  // not yet applied (apply_batch): a guest may queue new ones meanwhile, which are not answers.
  bool handed = false;

  // What each poll returned: the loop's own epoll_wait, or the embedder's (br_loop_step_ready).
  struct epoll_event events[BR_MAX_EVENTS];

  br::LoopStats stats;
  br::Uring *ur = nullptr;  // null: epoll (BINDRACE_LOOP, uring.h)
};

namespace br {

enum : int { kOwnerLoop = 0, kOwnerFree = 1, kOwnerGuest = 2 };

// The loop's clock, read once per wake (coarse clocks: no system call through the vDSO).
void tick(br_loop *l);

// The connection table, shared by the epoll and io_uring loops. pooled_conn: a Conn from the
// pool of closed ones, else a new one. enter_conn: puts it in the table as fd's connection, with
// its id and header deadline. reap: frees closed connections for reuse, only while the embedder
// holds no views into them. sweep: closes every connection past its deadline (set in conn.cc).
Conn *pooled_conn(br_loop *l);
void enter_conn(br_loop *l, Conn *c, int fd);
void reap(br_loop *l);
void sweep(br_loop *l);
// br_loop_stop's request, seen on the loop's thread: stops accepting (before_close, if any, runs
// just before the listener closes), finishes what was read, and on a forced stop closes all.
void begin_stop(br_loop *l, void (*before_close)(br_loop *));

// The loop's thread, first thing in a step: takes the loop's state back, waiting out a guest.
void own(br_loop *l);
// Any other thread: takes the state of an idle loop as its guest (true), its clocks brought up
// to date; false while the loop's thread or another guest has it.
bool guest_enter(br_loop *l);
// The guest gives the state back; wakes the loop when it left work for the embedder.
void guest_leave(br_loop *l);

// Queues c for this step's flush: whatever one read produced leaves in one send.
inline void mark_dirty(br_loop *l, Conn *c) {
  if (c->dirty) return;
  c->dirty = true;
  l->dirty.push_back(c);
}

inline void set_reading(br_loop *l, Conn *c, bool on) {
  if (c->reading == on) return;
  c->reading = on;
  update_events(l, c);
}

// The open connection the embedder or another thread names by id; null once it closed.
inline Conn *lookup(br_loop *l, uint64_t id) {
  auto idx = uint32_t(id);
  if (idx >= l->table.size()) return nullptr;
  Conn *c = l->table[idx];
  return c && c->id == id && !c->dead ? c : nullptr;
}

// While stopping, the last request already read gets "Connection: close".
inline bool stop_close(br_loop *l, Conn *c) {
  return l->stopping && c->http.slots.count <= 1 && c->parsed == c->in.len;
}

}  // namespace br
