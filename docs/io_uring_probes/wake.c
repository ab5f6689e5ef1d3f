// wake.c: what wakes a waiter when a DEFER_TASKRUN ring (argument "defer"; none: a plain ring) gets a completion's task work (docs/io_uring.md).
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <time.h>

static int rfd, efd, srv, cli;
static unsigned *sq_tail, *sq_head, *sq_flags, *cq_head, *cq_tail, *cq_flags, sq_mask;
static struct io_uring_sqe *sqes;
static char rbuf[64];

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static long enter(unsigned n, unsigned min, unsigned fl) { return syscall(__NR_io_uring_enter, rfd, n, min, fl, NULL, 0); }

static void arm_recv(void) {
  unsigned t = *sq_tail;
  struct io_uring_sqe *e = &sqes[t & sq_mask];
  memset(e, 0, sizeof *e);
  e->opcode = IORING_OP_RECV; e->fd = srv; e->addr = (unsigned long)rbuf; e->len = sizeof rbuf; e->user_data = 7;
  __atomic_store_n(sq_tail, t + 1, __ATOMIC_RELEASE);
  long r = enter(1, 0, 0);
  if (r != 1) { printf("submit: %ld %s\n", r, strerror(errno)); exit(1); }
}
static int cq_ready(void) { return __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) - *cq_head; }
static double sent_at;
static void *sender(void *a) { usleep(200000); sent_at = now(); if (write(cli, "x", 1) != 1) abort(); return NULL; }

struct wait { const char *how; int fd; double ms; int n; double lat; };
static void *waiter(void *a) {
  struct wait *w = a; double t0 = now();
  if (!strcmp(w->how, "epoll")) { struct epoll_event ev; w->n = epoll_wait(w->fd, &ev, 1, 1000); }
  else { struct pollfd p = {w->fd, POLLIN, 0}; w->n = poll(&p, 1, 1000); }
  w->ms = now() - t0; w->lat = now() - sent_at; return NULL;
}

static void round_(const char *name, const char *how, int fd, int other_thread) {
  arm_recv();
  pthread_t s; pthread_create(&s, NULL, sender, NULL);
  struct wait w = {how, fd, 0, 0, 0};
  if (other_thread) { pthread_t t; pthread_create(&t, NULL, waiter, &w); pthread_join(t, NULL); }
  else waiter(&w);
  pthread_join(s, NULL);
  usleep(50000);
  uint64_t cnt = 0; int er = read(efd, &cnt, 8);
  printf("%-44s waited %s: returned %d after %4.0f ms (%.3f ms after the write); then: cq ready %d, sq TASKRUN %d, eventfd count %s%llu\n",
         name, how, w.n, w.ms, w.lat, cq_ready(), !!(*sq_flags & IORING_SQ_TASKRUN), er == 8 ? "" : "(none) ", (unsigned long long)cnt);
  long r = enter(0, 0, IORING_ENTER_GETEVENTS);
  printf("%-44s io_uring_enter(GETEVENTS, min 0) = %ld: cq ready %d, sq TASKRUN %d\n", "", r, cq_ready(), !!(*sq_flags & IORING_SQ_TASKRUN));
  *cq_head = *cq_tail;
  if (read(efd, &cnt, 8) < 0) cnt = 0;
}

int main(int argc, char **argv) {
  int deferred = argc > 1 && !strcmp(argv[1], "defer");
  struct io_uring_params p = {0};
  p.flags = deferred ? IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_TASKRUN_FLAG : 0;
  rfd = syscall(__NR_io_uring_setup, 8, &p);
  if (rfd < 0) { printf("setup: %s\n", strerror(errno)); return 1; }
  printf("== ring flags 0x%x (%s), features 0x%x\n", p.flags, deferred ? "SINGLE_ISSUER|DEFER_TASKRUN|TASKRUN_FLAG" : "plain", p.features);
  size_t len = p.sq_off.array + p.sq_entries * 4; size_t cl = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe); if (cl > len) len = cl;
  char *b = mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQ_RING);
  sqes = mmap(0, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQES);
  sq_head = (void *)(b + p.sq_off.head); sq_tail = (void *)(b + p.sq_off.tail); sq_flags = (void *)(b + p.sq_off.flags);
  sq_mask = *(unsigned *)(b + p.sq_off.ring_mask);
  unsigned *arr = (void *)(b + p.sq_off.array); for (unsigned i = 0; i < p.sq_entries; i++) arr[i] = i;
  cq_head = (void *)(b + p.cq_off.head); cq_tail = (void *)(b + p.cq_off.tail); cq_flags = (void *)(b + p.cq_off.flags);
  efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (syscall(__NR_io_uring_register, rfd, IORING_REGISTER_EVENTFD, &efd, 1) < 0) { printf("register eventfd: %s\n", strerror(errno)); return 1; }
  // TCP loopback pair.
  int l = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a = {AF_INET, 0, {htonl(0x7f000001)}}; socklen_t al = sizeof a;
  bind(l, (void *)&a, sizeof a); listen(l, 1); getsockname(l, (void *)&a, &al);
  cli = socket(AF_INET, SOCK_STREAM, 0); connect(cli, (void *)&a, sizeof a); srv = accept(l, NULL, NULL);
  int ep_ring = epoll_create1(0), ep_ev = epoll_create1(0);
  struct epoll_event ev = {EPOLLIN}; epoll_ctl(ep_ring, EPOLL_CTL_ADD, rfd, &ev);
  struct epoll_event ev2 = {EPOLLIN | EPOLLET}; epoll_ctl(ep_ev, EPOLL_CTL_ADD, efd, &ev2);
  round_("submitter waits on the ring fd (epoll)", "epoll", ep_ring, 0);
  round_("submitter waits on the ring fd (poll)", "poll", rfd, 0);
  round_("submitter waits on the eventfd (epoll, ET)", "epoll", ep_ev, 0);
  round_("another thread waits on the ring fd (epoll)", "epoll", ep_ring, 1);
  round_("another thread waits on the eventfd (epoll, ET)", "epoll", ep_ev, 1);
  // The eventfd with IORING_CQ_EVENTFD_DISABLED set: no signal.
  __atomic_or_fetch(cq_flags, IORING_CQ_EVENTFD_DISABLED, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 8; i++) round_("again: submitter waits on the eventfd", "epoll", ep_ev, 0);
  round_("eventfd, IORING_CQ_EVENTFD_DISABLED set", "epoll", ep_ev, 0);
  __atomic_and_fetch(cq_flags, ~IORING_CQ_EVENTFD_DISABLED, __ATOMIC_SEQ_CST);
  // Does our own reaping enter signal the eventfd (a CQE posted by our enter)?
  arm_recv(); if (write(cli, "y", 1) != 1) abort(); usleep(50000);
  uint64_t c0 = 0; if (read(efd, &c0, 8) < 0) c0 = 0;
  long r = enter(0, 0, IORING_ENTER_GETEVENTS);
  uint64_t c1 = 0; int er = read(efd, &c1, 8);
  printf("own enter that posts a CQE (=%ld, cq ready %d): eventfd before %llu, after %s%llu\n", r, cq_ready(), (unsigned long long)c0, er == 8 ? "" : "(none) ", (unsigned long long)c1);
  return 0;
}
