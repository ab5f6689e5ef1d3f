// uring_ring.h — one io_uring instance through raw system calls (no liburing): the mapped
// submission and completion rings, and a ring of provided receive buffers. Only the io_uring
// loop (uring.cc) uses it; a machine without <linux/io_uring.h> builds the core without it.
#pragma once
#if __has_include(<linux/io_uring.h>)
#define BR_HAVE_URING 1
#include <linux/io_uring.h>

#include <cstddef>
#include <cstdint>

namespace br {

struct Ring {
  int fd = -1;
  unsigned sq_entries = 0, cq_entries = 0;
  // Submission ring: the kernel's head, our tail (published on enter), the SQE array; its flags
  // (IORING_SQ_TASKRUN: deferred task work is waiting for the issuer).
  unsigned *sq_head = nullptr, *sq_tail = nullptr, sq_mask = 0, sq_local = 0, *sq_flags = nullptr;
  io_uring_sqe *sqes = nullptr;
  // Completion ring.
  unsigned *cq_head = nullptr, *cq_tail = nullptr, cq_mask = 0;
  io_uring_cqe *cqes = nullptr;
  void *sq_map = nullptr, *cq_map = nullptr;
  size_t sq_map_len = 0, cq_map_len = 0, sqes_len = 0;
  // Provided buffers (group kBufGroup): nbufs of buf_size bytes, handed back through the ring.
  io_uring_buf_ring *bufs_ring = nullptr;
  size_t bufs_ring_len = 0;
  char *bufs = nullptr;
  unsigned nbufs = 0, buf_size = 0;
  uint16_t bufs_tail = 0;
  bool bufs_registered = false;
  // Wait in ppoll on the ring's fd instead of in io_uring_enter (BINDRACE_URING_WAIT=poll):
  // valgrind 3.19 runs io_uring_enter holding its scheduler lock, so while the loop's thread
  // waits there no other thread of the process runs, and a stop posted by one never arrives.
  // ppoll is a wait valgrind knows blocks. It costs a system call per wait, so only the
  // cachegrind mode asks for it.
  bool poll_wait = false;
  // Deferred task work (IORING_SETUP_SINGLE_ISSUER | DEFER_TASKRUN | TASKRUN_FLAG): the kernel
  // posts a completion only when the one issuing thread enters the ring, which that thread must
  // do from the first step on (set up disabled, enabled by enable() on the loop's thread).
  // Nothing that polls (epoll, poll, the netpoller) wakes for such work: only the issuer's own
  // io_uring_enter wait does (docs/io_uring.md, "Deferred task work").
  bool deferred = false;
  // The ring's fd as registered with the issuing thread (IORING_REGISTER_RING_FDS): enter
  // passes it with IORING_ENTER_REGISTERED_RING and the kernel skips the fd lookup. -1: none.
  int reg_index = -1;
  // Why deferred task work was not used although asked for (empty: it was, or not asked).
  char plain_why[128] = "";

  static constexpr uint16_t kBufGroup = 0;

  // Sets the ring up: 0, or the errno of the failing step with a line saying which in why. With
  // defer it asks for deferred task work first and, where the kernel refuses those flags
  // (EINVAL: before Linux 6.1), sets the ring up without them, saying why in plain_why.
  int open(unsigned entries, unsigned nbufs, unsigned buf_size, bool defer, char *why, size_t why_len);
  // On the thread that will issue every request, before the first: enables a deferred ring
  // (that thread becomes its only issuer) and registers its fd with that thread. 0 or -errno.
  int enable();
  // On the issuing thread, once it issues no more (the loop is done): drops the registration
  // of enable(), which holds the ring open as long as that thread lives.
  void disable_registered();
  void close();
  // Deferred task work queued that only the issuer's next enter turns into completions.
  bool work_pending() const { return deferred && (__atomic_load_n(sq_flags, __ATOMIC_ACQUIRE) & IORING_SQ_TASKRUN); }
  // The fd and flags an io_uring_enter on this ring passes from the issuing thread.
  int enter_fd() const { return reg_index >= 0 ? reg_index : fd; }
  unsigned enter_flags() const { return reg_index >= 0 ? IORING_ENTER_REGISTERED_RING : 0; }

  // A zeroed SQE and its slot index, or null when every slot waits for the kernel (after one
  // submit to make room has not freed any).
  io_uring_sqe *sqe(unsigned *slot);
  // Makes the queued SQEs visible to the kernel, for an io_uring_enter made elsewhere (the
  // embedder's wait, br_loop_uring_wait).
  void publish() { __atomic_store_n(sq_tail, sq_local, __ATOMIC_RELEASE); }
  // SQEs queued but not yet taken by the kernel.
  unsigned pending() const { return sq_local - __atomic_load_n(sq_head, __ATOMIC_ACQUIRE); }
  // Submits what is queued and, with min > 0, waits up to timeout_ms (-1: no limit) for min
  // completions. Returns the SQEs submitted, or -errno (ETIME, EINTR, EBUSY: the caller reaps
  // and goes on).
  int enter(unsigned min, int timeout_ms);
  // Completions posted and not yet reaped.
  bool ready() const { return __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) != *cq_head; }

  char *buf(unsigned bid) { return bufs + size_t(bid) * buf_size; }
  // Hands buffer bid back to the kernel (visible after publish_bufs).
  void recycle(unsigned bid) {
    // Not bufs_ring->bufs[]: in C++ the header's flexible array sits after a one-byte empty
    // struct, 8 bytes past where the kernel (C) reads entry 0.
    io_uring_buf &b = reinterpret_cast<io_uring_buf *>(bufs_ring)[bufs_tail & (nbufs - 1)];
    b.addr = uint64_t(uintptr_t(buf(bid)));
    b.len = buf_size;
    b.bid = uint16_t(bid);
    bufs_tail++;
  }
  void publish_bufs() { __atomic_store_n(&bufs_ring->tail, bufs_tail, __ATOMIC_RELEASE); }

 private:
  int enter_then_poll(int timeout_ms);
};

}  // namespace br
#endif
