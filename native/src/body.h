// body.h — an immutable body in C memory, shared by every response that sends it (zero-copy).
// Any thread may hold a reference: the embedder's handle, static routes, queued sends.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdlib>

struct br_body {
  std::atomic<long> refs;
  size_t len;
  char data[];  // allocated with the struct
};

namespace br {

// A new reference needs no ordering: the caller already holds one, so the body is alive.
inline br_body *body_ref(br_body *b) {
  b->refs.fetch_add(1, std::memory_order_relaxed);
  return b;
}

// acq_rel: the thread that frees must see every other holder's last use of the bytes.
inline void body_unref(br_body *b) {
  if (b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) free(b);
}

}  // namespace br
