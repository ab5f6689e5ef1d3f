// uring.h — the io_uring event loop, an option beside epoll (docs/io_uring.md). BINDRACE_LOOP
// chooses once per loop, in br_loop_new: "epoll" (or unset), "uring" (io_uring or fail, naming
// the reason), "auto" (io_uring when the kernel allows it, else epoll, said once on stderr).
// On io_uring the loop keeps every epoll policy; only how bytes move differs: a multishot accept,
// a multishot recv per connection into provided buffers (copied into the connection's receive
// buffer), and every connection's send of one iteration submitted together with the wait.
#pragma once
#include "bindrace.h"

struct br_loop;

namespace br {

struct Conn;

// Reads BINDRACE_LOOP and sets l up on io_uring when asked: 0, or the errno that refuses the
// loop (io_uring asked for explicitly and refused, or an unknown value).
int choose_backend(br_loop *l);
// br_loop_step on io_uring.
int uring_step(br_loop *l, br_batch *b, int wait);
// update_events on io_uring: arms or cancels c's recv and its poll for output room.
void uring_update(br_loop *l, Conn *c);
// destroy on io_uring, before the socket is closed: cancels c's requests on the ring.
void uring_forget(br_loop *l, Conn *c);
// br_loop_free on io_uring: the ring, its buffers, its state; l->ur is null afterwards.
void uring_free(br_loop *l);

}  // namespace br
