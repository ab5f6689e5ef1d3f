// listener.h — the listening socket of one loop: bound to host:port with SO_REUSEPORT, so the
// loops of one app (one per thread) share the port and the kernel spreads connections over them.
#pragma once

struct br_app;

namespace br {

// Opens a non-blocking listening socket for app on host (IPv4, IPv6 or empty: any IPv4) and
// port (0: ephemeral). Returns 0 with *fd and *bound_port set, or the errno of the failed call.
int open_listener(const br_app *app, const char *host, int port, int *fd, int *bound_port);

}  // namespace br
