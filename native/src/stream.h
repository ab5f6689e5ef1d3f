// stream.h — a response body written chunk by chunk from any thread. Backpressure: writers may
// have at most `limit` bytes queued or unsent; past that br_stream_write says "full", and the
// loop posts the stream's token as a wake once the socket drained half of it.
#pragma once
#include <atomic>
#include <cstdint>

struct br_loop;

struct br_stream {
  br_loop *loop;
  uint64_t token;
  int64_t content_length;  // -1: chunked
  int64_t limit;
  std::atomic<int64_t> inflight;  // bytes accepted from the writer and not yet sent
  std::atomic<int> want_wake, dead, refs;
  // Loop-thread state, set when the response that carries the stream is applied.
  uint64_t conn;
  uint32_t seq;
  uint64_t sent_body;  // body bytes queued on the connection
};

namespace br {

// References: the writer's handle, the slot that sends the body, every queued op.
inline void stream_ref(br_stream *s) { s->refs.fetch_add(1, std::memory_order_relaxed); }

// acq_rel: the writer's thread and the loop's thread both drop references.
inline void stream_unref(br_stream *s) {
  if (s->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete s;
}

}  // namespace br
