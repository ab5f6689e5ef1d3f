// sys.h — the hot path's three system calls, made directly. glibc wraps recv, sendmsg and
// epoll_wait as thread-cancellation points: each call turns asynchronous cancellation on and
// off around the system call (__pthread_enable/disable_asynccancel, about 30 instructions).
// The core never cancels a thread, so syscall(2) does the same work without them. Same
// arguments, results and errno as the libc functions.
#pragma once
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace br::sys {

inline ssize_t recv(int fd, void *buf, size_t n) { return syscall(SYS_recvfrom, fd, buf, n, 0, nullptr, nullptr); }

inline ssize_t sendmsg(int fd, const struct msghdr *m, int flags) { return syscall(SYS_sendmsg, fd, m, flags); }

inline int epoll_wait(int ep, struct epoll_event *ev, int max, int timeout_ms) {
  return int(syscall(SYS_epoll_wait, ep, ev, max, timeout_ms));
}

}  // namespace br::sys
