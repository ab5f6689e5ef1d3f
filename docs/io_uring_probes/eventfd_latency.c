// eventfd_latency.c (docs/io_uring.md): a DEFER_TASKRUN ring with a registered eventfd; a recv armed, the peer writes, the
// submitter waits on the eventfd (epoll). Per trial: how long after the write the wait ended,
// and the eventfd's count. Mode "fresh": a new ring per trial; "same": one ring.
#define _GNU_SOURCE
#include <linux/io_uring.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/epoll.h>
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

struct ring { int fd, efd, ep; unsigned *sq_tail, *sq_flags, *cq_head, *cq_tail, sq_mask; struct io_uring_sqe *sqes; };
static int srv, cli; static char rbuf[64]; static double sent_at; static int delay_us = 100000;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }

static void ring_open(struct ring *r, unsigned flags) {
  struct io_uring_params p = {0}; p.flags = flags;
  r->fd = syscall(__NR_io_uring_setup, 8, &p); if (r->fd < 0) { perror("setup"); exit(1); }
  size_t len = p.sq_off.array + p.sq_entries * 4, cl = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe); if (cl > len) len = cl;
  char *b = mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
  r->sqes = mmap(0, p.sq_entries * sizeof *r->sqes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
  r->sq_tail = (void *)(b + p.sq_off.tail); r->sq_flags = (void *)(b + p.sq_off.flags); r->sq_mask = *(unsigned *)(b + p.sq_off.ring_mask);
  unsigned *arr = (void *)(b + p.sq_off.array); for (unsigned i = 0; i < p.sq_entries; i++) arr[i] = i;
  r->cq_head = (void *)(b + p.cq_off.head); r->cq_tail = (void *)(b + p.cq_off.tail);
  r->efd = eventfd(0, EFD_NONBLOCK);
  if (syscall(__NR_io_uring_register, r->fd, IORING_REGISTER_EVENTFD, &r->efd, 1) < 0) { perror("register"); exit(1); }
  r->ep = epoll_create1(0); struct epoll_event ev = {EPOLLIN | EPOLLET}; epoll_ctl(r->ep, EPOLL_CTL_ADD, r->efd, &ev);
}
static void *sender(void *a) { usleep(delay_us); sent_at = now(); if (write(cli, "x", 1) != 1) abort(); return NULL; }

static void trial(struct ring *r, int i) {
  unsigned t = *r->sq_tail; struct io_uring_sqe *e = &r->sqes[t & r->sq_mask]; memset(e, 0, sizeof *e);
  e->opcode = IORING_OP_RECV; e->fd = srv; e->addr = (unsigned long)rbuf; e->len = sizeof rbuf; e->user_data = 7;
  __atomic_store_n(r->sq_tail, t + 1, __ATOMIC_RELEASE);
  if (syscall(__NR_io_uring_enter, r->fd, 1, 0, 0, NULL, 0) != 1) { perror("submit"); exit(1); }
  pthread_t s; pthread_create(&s, NULL, sender, NULL);
  struct epoll_event ev; int n = epoll_wait(r->ep, &ev, 1, 1000); double lat = now() - sent_at;
  pthread_join(s, NULL);
  uint64_t cnt = 0; int got = read(r->efd, &cnt, 8) == 8;
  long x = syscall(__NR_io_uring_enter, r->fd, 0, 1, IORING_ENTER_GETEVENTS, NULL, 0);
  unsigned ready = *r->cq_tail - *r->cq_head; *r->cq_head = *r->cq_tail;
  uint64_t c2 = 0; int got2 = read(r->efd, &c2, 8) == 8;
  printf("trial %d: epoll_wait = %d, %7.3f ms after the write; eventfd %llu%s; enter = %ld, %u CQE; eventfd after the reap %s%llu\n",
         i, n, lat, (unsigned long long)cnt, got ? "" : " (nothing)", x, ready, got2 ? "" : "(nothing) ", (unsigned long long)c2);
}

int main(int argc, char **argv) {
  int fresh = argc > 1 && !strcmp(argv[1], "fresh");
  unsigned flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
  if (argc > 2 && !strcmp(argv[2], "plain")) flags = 0;
  if (argc > 3) delay_us = atoi(argv[3]);
  int l = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a = {AF_INET, 0, {htonl(0x7f000001)}}; socklen_t al = sizeof a;
  bind(l, (void *)&a, sizeof a); listen(l, 1); getsockname(l, (void *)&a, &al);
  cli = socket(AF_INET, SOCK_STREAM, 0); connect(cli, (void *)&a, sizeof a); srv = accept(l, NULL, NULL);
  printf("== %s ring per trial, flags 0x%x\n", fresh ? "a fresh" : "one", flags);
  struct ring r; ring_open(&r, flags);
  for (int i = 0; i < 8; i++) {
    if (fresh && i) { close(r.fd); close(r.efd); close(r.ep); ring_open(&r, flags); }
    trial(&r, i);
  }
  return 0;
}
