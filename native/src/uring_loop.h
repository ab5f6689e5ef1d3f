// uring_loop.h — the io_uring loop's state and the requests it keeps on the ring, shared by
// uring.cc (step, wait, timers) and uring_conn.cc (completions, sends, one connection's side).
#pragma once
#include "uring_ring.h"

#ifdef BR_HAVE_URING
#include <sys/socket.h>
#include <sys/uio.h>

#include <cstdint>
#include <vector>

struct br_loop;

namespace br {

struct Conn;

// What a completion is for: the top byte of its user_data. A connection's requests carry its
// index and the low 24 bits of its generation, so a completion that arrives after the
// connection closed (and its slot was reused) is recognised and dropped.
enum Kind : uint8_t { kAccept = 1, kWake, kRecv, kSend, kPollOut, kCancel };
inline uint64_t ud(Kind k, uint32_t gen, uint32_t idx) {
  return uint64_t(k) << 56 | uint64_t(gen & 0xffffff) << 32 | idx;
}

constexpr int kSendIov = 64;  // iovecs per send, as OutQueue::flush
// The largest send that counts as quiet: far below any socket's send buffer, so one that is not
// taken whole means a client that stopped reading, and waiting for its next event costs nothing.
constexpr size_t kQuietSend = size_t(16) << 10;

// One send's message, in the slot of its SQE (the kernel copies it during the submit).
struct SendRec {
  struct msghdr msg;
  struct iovec iov[kSendIov];
};

struct Uring {
  Ring ring;
  std::vector<SendRec> recs;         // by SQE slot
  std::vector<io_uring_cqe> deferred;  // receives held while their connection's views are out
  std::vector<io_uring_cqe> replaying;
  std::vector<uint64_t> cancels;     // requests to cancel, waiting for a free SQE
  std::vector<uint64_t> rearm;       // connections (ids) whose recv waits for an SQE
  std::vector<uint64_t> nobufs;      // connections whose recv ended on -ENOBUFS
  unsigned sends = 0;                // sends queued whose completion is not reaped yet
  unsigned held = 0;                 // provided buffers held by deferred completions
  uint64_t late_sends = 0;           // waits for a send the kernel did not finish in its submit
  // A send queued since the last submit whose completion has work to do (after_flush): reading
  // to resume, a stream chunk to hand back, a close, a WebSocket backlog, bytes left over. Only
  // a submission without one may wait in the same io_uring_enter ("Submit and wait together").
  bool eventful_sends = false;
  // What the embedder's next raw wait submits and waits for: {SQEs, completions}. A step sets it
  // to {0, 1}, or hands its quiet sends over with {queued, sends + 1}.
  unsigned embed[2] = {0, 1};
  bool started = false, accept_armed = false, wake_armed = false, wake_seen = false;
  // The embedder's own wait in io_uring_enter (br_loop_uring_wait): its argument, in C memory.
  io_uring_getevents_arg wait_arg = {};
  __kernel_timespec wait_ts = {};
};

void arm_accept(br_loop *l);
void arm_wake(br_loop *l);
void cancel(br_loop *l, uint64_t user_data);
// Handles every completion ready now; their count, or -1 when the inbox failed.
int reap_cq(br_loop *l);
// At a step's start, with the embedder's answers applied: the receives held back for them.
void replay_deferred(br_loop *l);
// Re-arms what waited for an SQE or for buffers.
void retry_pending(br_loop *l);
// flush_dirty on io_uring: one send request per connection with output, into the next submit.
void queue_sends(br_loop *l);

}  // namespace br
#endif
