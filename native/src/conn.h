// conn.h — one client connection as the loop sees it: socket, receive buffer (request views and
// WebSocket messages point into it), out queue, deadline. The protocol's state lives apart:
// HttpState (http_conn.h) until an upgrade, WsState (ws_conn.h) from then on.
#pragma once
#include <cstddef>
#include <cstdint>

#include "buffer.h"
#include "http_conn.h"
#include "out_queue.h"
#include "ws_conn.h"

struct br_loop;

namespace br {

constexpr size_t kInitialIn = 16384;  // receive buffer of a new connection

struct Conn {
  int fd = -1;
  uint32_t idx = 0, gen = 0;
  uint64_t id = 0;  // gen << 32 | idx; what the embedder and async completions name

  Buffer in;
  size_t parsed = 0;  // in.data[parsed, len) is not yet consumed
  size_t need = 0;    // bytes from `parsed` the current request or frame needs (length known)
  OutQueue out;
  uint32_t in_batch = 0;  // requests and WebSocket events of this connection the embedder holds

  uint64_t deadline = 0;  // monotonic ms; 0 = none
  bool dead = false, close_after = false, read_closed = false;
  bool reading = true, want_write = false, dirty = false;
  // The io_uring loop's requests on the socket (uring.cc): the multishot recv (none, armed,
  // being cancelled), the one-shot poll for output room, a send in the next submit.
  uint8_t ur_recv = 0;
  bool ur_poll = false, ur_send = false;  // ur_send: a send queued whose completion is not reaped

  HttpState http;
  WsState ws;
};

// Watches c for input (c->reading) and output room (c->want_write); a failure closes c.
void update_events(br_loop *l, Conn *c);
// Closes c now; its memory is reused once the embedder holds no views into it (reap).
void destroy(br_loop *l, Conn *c);
// on_readable and flush_dirty run in every step. In br_loop_step's file they were inlined into it
// (a file-local function with one caller always is); from another file ThinLTO leaves functions
// this large out of line, and `ld.lld -r` keeps every symbol global, so each would cost a call
// per step: +1% instructions per ws-echo message, measured. clang (the release build) is told to
// inline them; other compilers only build the unity file, where they are in the same unit.
#if defined(__clang__)
#define BR_INLINE_INTO_STEP [[clang::always_inline]]
#else
#define BR_INLINE_INTO_STEP
#endif

// The end of a flush once its send's result is known (the io_uring loop's sends, uring.cc):
// parse what is buffered, resume reading or close, report a WebSocket backlog.
void after_flush(br_loop *l, Conn *c, bool progressed);

// One read: makes room in the receive buffer, receives, and processes what arrived.
BR_INLINE_INTO_STEP void on_readable(br_loop *l, Conn *c);
// One send per connection for everything answered since the last flush (the cork), then
// whatever the drained output allows: parsing buffered requests, reading again, or closing.
BR_INLINE_INTO_STEP void flush_dirty(br_loop *l);

}  // namespace br
