// uring_ring.cc — see uring_ring.h.
#include "uring_ring.h"

#ifdef BR_HAVE_URING
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace br {
namespace {

int sys_setup(unsigned entries, io_uring_params *p) { return int(syscall(__NR_io_uring_setup, entries, p)); }

int sys_register(int fd, unsigned op, void *arg, unsigned n) {
  return int(syscall(__NR_io_uring_register, fd, op, arg, n));
}

// The errno of a failed step, and the line that names it.
int failed(char *why, size_t n, const char *what) {
  int e = errno;
  (void)snprintf(why, n, "%s: %s", what, strerror(e));
  return e;
}

void *map(size_t len, int fd, off_t off) {
  return mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, off);
}

}  // namespace

int Ring::open(unsigned entries, unsigned n_bufs, unsigned size, bool defer, char *why, size_t why_len) {
  io_uring_params p = {};
  const unsigned plain = IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL | IORING_SETUP_CLAMP;
  const unsigned deferral = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG |
                            IORING_SETUP_R_DISABLED;
  p.flags = plain | (defer ? deferral : 0);
  p.cq_entries = entries * 8;
  fd = sys_setup(entries, &p);
  if (fd < 0 && defer && errno == EINVAL) {
    // A kernel before 6.1 knows no DEFER_TASKRUN: the plain set-up, said in the backend note.
    (void)snprintf(plain_why, sizeof plain_why, "deferred task work refused: io_uring_setup: %s", strerror(errno));
    p = {};
    p.flags = plain;
    p.cq_entries = entries * 8;
    fd = sys_setup(entries, &p);
  } else if (fd >= 0 && defer) {
    deferred = true;
  }
  if (fd < 0) return failed(why, why_len, "io_uring_setup");
  const unsigned need = IORING_FEAT_SINGLE_MMAP | IORING_FEAT_NODROP | IORING_FEAT_EXT_ARG | IORING_FEAT_FAST_POLL;
  if ((p.features & need) != need) {
    (void)snprintf(why, why_len, "io_uring lacks features this loop needs (features 0x%x, needs 0x%x)", p.features,
                   need);
    return ENOSYS;
  }
  sq_entries = p.sq_entries;
  cq_entries = p.cq_entries;
  sq_map_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
  if (cq_len > sq_map_len) sq_map_len = cq_len;
  sq_map = map(sq_map_len, fd, IORING_OFF_SQ_RING);
  if (sq_map == MAP_FAILED) {
    sq_map = nullptr;
    return failed(why, why_len, "mmap of the io_uring rings");
  }
  cq_map = sq_map;  // IORING_FEAT_SINGLE_MMAP: one mapping holds both rings
  sqes_len = p.sq_entries * sizeof(io_uring_sqe);
  void *s = map(sqes_len, fd, IORING_OFF_SQES);
  if (s == MAP_FAILED) return failed(why, why_len, "mmap of the io_uring SQEs");
  sqes = static_cast<io_uring_sqe *>(s);
  char *base = static_cast<char *>(sq_map);
  sq_head = reinterpret_cast<unsigned *>(base + p.sq_off.head);
  sq_tail = reinterpret_cast<unsigned *>(base + p.sq_off.tail);
  sq_mask = *reinterpret_cast<unsigned *>(base + p.sq_off.ring_mask);
  sq_flags = reinterpret_cast<unsigned *>(base + p.sq_off.flags);
  auto *array = reinterpret_cast<unsigned *>(base + p.sq_off.array);
  for (unsigned i = 0; i < p.sq_entries; i++) array[i] = i;  // slot i is SQE i, always
  sq_local = *sq_tail;
  cq_head = reinterpret_cast<unsigned *>(base + p.cq_off.head);
  cq_tail = reinterpret_cast<unsigned *>(base + p.cq_off.tail);
  cq_mask = *reinterpret_cast<unsigned *>(base + p.cq_off.ring_mask);
  cqes = reinterpret_cast<io_uring_cqe *>(base + p.cq_off.cqes);

  // The provided buffers: a page-aligned ring of nbufs entries (a power of two) and the bytes.
  nbufs = n_bufs;
  buf_size = size;
  bufs_ring_len = size_t(nbufs) * sizeof(io_uring_buf);
  void *r = mmap(nullptr, bufs_ring_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (r == MAP_FAILED) return failed(why, why_len, "mmap of the buffer ring");
  bufs_ring = static_cast<io_uring_buf_ring *>(r);
  void *b = mmap(nullptr, size_t(nbufs) * buf_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED) return failed(why, why_len, "mmap of the receive buffers");
  bufs = static_cast<char *>(b);
  io_uring_buf_reg reg = {};
  reg.ring_addr = uint64_t(uintptr_t(bufs_ring));
  reg.ring_entries = nbufs;
  reg.bgid = kBufGroup;
  if (sys_register(fd, IORING_REGISTER_PBUF_RING, &reg, 1) < 0)
    return failed(why, why_len, "io_uring_register(IORING_REGISTER_PBUF_RING) (provided buffer rings need Linux 5.19)");
  bufs_registered = true;
  for (unsigned i = 0; i < nbufs; i++) recycle(i);
  publish_bufs();
  return 0;
}

int Ring::enable() {
  if (!deferred) return 0;
  if (sys_register(fd, IORING_REGISTER_ENABLE_RINGS, nullptr, 0) < 0) return -errno;
  io_uring_rsrc_update u = {};
  u.offset = ~0u;  // any free slot of this thread's registered rings
  u.data = uint64_t(fd);
  if (sys_register(fd, IORING_REGISTER_RING_FDS, &u, 1) == 1) reg_index = int(u.offset);
  return 0;  // without the registration every enter names the fd: slower, as correct
}

void Ring::disable_registered() {
  if (reg_index < 0) return;
  io_uring_rsrc_update u = {};
  u.offset = unsigned(reg_index);
  (void)sys_register(fd, IORING_UNREGISTER_RING_FDS, &u, 1);
  reg_index = -1;
}

void Ring::close() {
  // From any thread: on a deferred ring only the issuer may unregister (EEXIST otherwise);
  // closing the fd ends the ring, its buffer ring and every request on it anyway.
  if (bufs_registered) {
    io_uring_buf_reg reg = {};
    reg.bgid = kBufGroup;
    (void)sys_register(fd, IORING_UNREGISTER_PBUF_RING, &reg, 1);  // the ring goes anyway
  }
  if (fd >= 0) ::close(fd);  // cancels every request still on the ring
  if (sqes) munmap(sqes, sqes_len);
  if (sq_map) munmap(sq_map, sq_map_len);
  if (bufs_ring) munmap(bufs_ring, bufs_ring_len);
  if (bufs) munmap(bufs, size_t(nbufs) * buf_size);
  *this = Ring();
}

io_uring_sqe *Ring::sqe(unsigned *slot) {
  if (pending() >= sq_entries) {
    (void)enter(0, -1);  // submit to make room; what completes is reaped by the caller's loop
    if (pending() >= sq_entries) return nullptr;
  }
  *slot = sq_local & sq_mask;
  io_uring_sqe *e = &sqes[*slot];
  memset(e, 0, sizeof *e);
  sq_local++;
  return e;
}

int Ring::enter(unsigned min, int timeout_ms) {
  if (min && poll_wait) return enter_then_poll(timeout_ms);
  publish();
  unsigned flags = IORING_ENTER_GETEVENTS | enter_flags();  // also runs task work, flushes overflow
  io_uring_getevents_arg arg = {};
  __kernel_timespec ts = {};
  void *argp = nullptr;
  size_t argsz = 0;
  if (min && timeout_ms >= 0) {
    ts.tv_sec = timeout_ms / 1000;
    ts.tv_nsec = (timeout_ms % 1000) * 1000000LL;
    arg.ts = uint64_t(uintptr_t(&ts));
    argp = &arg;
    argsz = sizeof arg;
    flags |= IORING_ENTER_EXT_ARG;
  }
  long r = syscall(__NR_io_uring_enter, enter_fd(), pending(), min, flags, argp, argsz);
  return r < 0 ? -errno : int(r);
}

// The ring's fd polls readable once a completion is posted. One that is still the armer's task
// work interrupts the poll, which the kernel restarts after running it, so none is missed.
int Ring::enter_then_poll(int timeout_ms) {
  int r = enter(0, -1);
  if (r < 0 || ready()) return r;
  pollfd p = {fd, POLLIN, 0};
  timespec ts = {timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
  int n = ppoll(&p, 1, timeout_ms >= 0 ? &ts : nullptr, nullptr);
  if (n < 0) return -errno;
  return n == 0 ? -ETIME : r;
}

}  // namespace br
#endif
