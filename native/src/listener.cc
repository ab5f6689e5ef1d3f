// listener.cc — see listener.h.
#include "listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "app.h"

namespace br {
namespace {

constexpr int kBacklog = 4096;

// An IPv4 or IPv6 address to bind to.
struct Address {
  bool v6 = false;
  sockaddr_in a4 = {};
  sockaddr_in6 a6 = {};

  int family() const { return v6 ? AF_INET6 : AF_INET; }
  int bind_to(int fd) const {
    return v6 ? bind(fd, reinterpret_cast<const sockaddr *>(&a6), sizeof a6)
              : bind(fd, reinterpret_cast<const sockaddr *>(&a4), sizeof a4);
  }
};

// Parses host (a literal address; empty or null: any IPv4 address); false if it is none.
bool parse_address(const char *host, int port, Address *a) {
  a->v6 = host && strchr(host, ':');
  if (a->v6) {
    a->a6.sin6_family = AF_INET6;
    a->a6.sin6_port = htons(uint16_t(port));
    return inet_pton(AF_INET6, host, &a->a6.sin6_addr) == 1;
  }
  a->a4.sin_family = AF_INET;
  a->a4.sin_port = htons(uint16_t(port));
  return !host || !*host || inet_pton(AF_INET, host, &a->a4.sin_addr) == 1;
}

int set_flag(int fd, int level, int name) {
  int one = 1;
  return setsockopt(fd, level, name, &one, sizeof one);
}

// The errno of the call that just failed, after closing fd.
int close_with_errno(int fd) {
  int e = errno;
  close(fd);
  return e;
}

// SO_REUSEPORT would let this loop join a group another process (of the same user) already
// listens with, and split its connections with it silently. A bind without it fails with
// EADDRINUSE when anyone listens on the port, as every other server does.
int probe_port(const Address &a) {
  int probe = socket(a.family(), SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return errno;
  // SO_REUSEADDR: a connection in TIME_WAIT does not own the port.
  if (set_flag(probe, SOL_SOCKET, SO_REUSEADDR) < 0 || a.bind_to(probe) < 0) return close_with_errno(probe);
  close(probe);
  return 0;
}

}  // namespace

int open_listener(const br_app *app, const char *host, int port, int *fd_out, int *bound_port) {
  Address a;
  if (!parse_address(host, port, &a)) return EINVAL;
  // The app's later loops join the group its first loop holds; only the first one probes.
  if (port != 0 && app->group_port.load() != port)
    if (int e = probe_port(a)) return e;
  int fd = socket(a.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  if (set_flag(fd, SOL_SOCKET, SO_REUSEADDR) < 0 || set_flag(fd, SOL_SOCKET, SO_REUSEPORT) < 0 ||
      a.bind_to(fd) < 0 || listen(fd, kBacklog) < 0)
    return close_with_errno(fd);
  sockaddr_in6 bound = {};
  socklen_t bl = sizeof bound;
  if (getsockname(fd, reinterpret_cast<sockaddr *>(&bound), &bl) < 0) return close_with_errno(fd);
  *fd_out = fd;
  *bound_port = ntohs(bound.sin6_port);  // sin_port and sin6_port share an offset
  return 0;
}

}  // namespace br
