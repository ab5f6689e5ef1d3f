// issuer_wait.c (docs/io_uring.md): a DEFER_TASKRUN|SINGLE_ISSUER|R_DISABLED ring set up on one thread (eventfd
// registered there), enabled on another (the loop's); io_uring_enter from a third thread; and
// the submitter waiting inside io_uring_enter(GETEVENTS, min 1, 1 s timeout) for a recv whose
// data the peer writes 100 ms later: how long after the write the wait ends.
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>

static int rfd, srv, cli; static unsigned *sq_tail, *sq_flags, *cq_head, *cq_tail, sq_mask; static struct io_uring_sqe *sqes;
static char rbuf[64]; static double sent_at;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static long enter(unsigned n, unsigned min, unsigned fl, void *arg, size_t sz) { long r = syscall(__NR_io_uring_enter, rfd, n, min, fl, arg, sz); return r < 0 ? -errno : r; }
static void *sender(void *a) { usleep(100000); sent_at = now(); if (write(cli, "x", 1) != 1) abort(); return NULL; }
static void *other(void *a) { long r = enter(0, 0, IORING_ENTER_GETEVENTS, NULL, 0); printf("io_uring_enter from another thread after enabling: %ld (%s)\n", r, r < 0 ? strerror(-r) : "ok"); return NULL; }

int main(void) {
  struct io_uring_params p = {0};
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG | IORING_SETUP_R_DISABLED;
  rfd = syscall(__NR_io_uring_setup, 8, &p); if (rfd < 0) { perror("setup"); return 1; }
  size_t len = p.sq_off.array + p.sq_entries * 4, cl = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe); if (cl > len) len = cl;
  char *b = mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQ_RING);
  sqes = mmap(0, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQES);
  sq_tail = (void *)(b + p.sq_off.tail); sq_flags = (void *)(b + p.sq_off.flags); sq_mask = *(unsigned *)(b + p.sq_off.ring_mask);
  unsigned *arr = (void *)(b + p.sq_off.array); for (unsigned i = 0; i < p.sq_entries; i++) arr[i] = i;
  cq_head = (void *)(b + p.cq_off.head); cq_tail = (void *)(b + p.cq_off.tail);
  int efd = eventfd(0, EFD_NONBLOCK);
  long r = syscall(__NR_io_uring_register, rfd, IORING_REGISTER_EVENTFD, &efd, 1);
  printf("register eventfd on the setting-up thread, ring disabled: %ld\n", r < 0 ? -errno : r);
  r = enter(0, 0, IORING_ENTER_GETEVENTS, NULL, 0);
  printf("io_uring_enter while disabled: %ld (%s)\n", r, r < 0 ? strerror(-r) : "ok");
  pthread_t t;
  // Enable from a new thread: that thread becomes the submitter. Do everything else on it.
  void *loop(void *a);
  pthread_create(&t, NULL, loop, NULL); pthread_join(t, NULL);
  r = syscall(__NR_io_uring_register, rfd, IORING_UNREGISTER_EVENTFD, NULL, 0);
  printf("unregister eventfd from the first thread after the submitter exited: %ld (%s)\n", r < 0 ? -errno : r, r < 0 ? strerror(errno) : "ok");
  return 0;
}

void *loop(void *a) {
  long r = syscall(__NR_io_uring_register, rfd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
  printf("IORING_REGISTER_ENABLE_RINGS on the loop's thread: %ld\n", r < 0 ? -errno : r);
  pthread_t o; pthread_create(&o, NULL, other, NULL); pthread_join(o, NULL);
  int fd2 = eventfd(0, 0); r = syscall(__NR_io_uring_register, rfd, IORING_UNREGISTER_EVENTFD, NULL, 0);
  printf("unregister eventfd on the submitter: %ld\n", r < 0 ? -errno : r); (void)fd2;
  int l = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in sa = {AF_INET, 0, {htonl(0x7f000001)}}; socklen_t al = sizeof sa;
  bind(l, (void *)&sa, sizeof sa); listen(l, 1); getsockname(l, (void *)&sa, &al);
  cli = socket(AF_INET, SOCK_STREAM, 0); connect(cli, (void *)&sa, sizeof sa); srv = accept(l, NULL, NULL);
  for (int i = 0; i < 6; i++) {
    unsigned t = *sq_tail; struct io_uring_sqe *e = &sqes[t & sq_mask]; memset(e, 0, sizeof *e);
    e->opcode = IORING_OP_RECV; e->fd = srv; e->addr = (unsigned long)rbuf; e->len = sizeof rbuf; e->user_data = 7;
    __atomic_store_n(sq_tail, t + 1, __ATOMIC_RELEASE);
    pthread_t s; pthread_create(&s, NULL, sender, NULL);
    struct __kernel_timespec ts = {1, 0}; struct io_uring_getevents_arg ga = {0}; ga.ts = (unsigned long)&ts;
    double t0 = now();
    r = enter(1, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &ga, sizeof ga);
    double t1 = now();
    unsigned ready = *cq_tail - *cq_head;
    if (!ready) { r = enter(0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &ga, sizeof ga); t1 = now(); ready = *cq_tail - *cq_head; }
    pthread_join(s, NULL);
    printf("submitter waits in io_uring_enter(min 1): %ld, %u CQE, %.3f ms after the write (waited %.0f ms)\n", r, ready, t1 - sent_at, t1 - t0);
    *cq_head = *cq_tail;
  }
  return NULL;
}
