// body.h — an immutable body in C memory, shared by every response that sends it (zero-copy).
#pragma once
#include <atomic>
#include <cstddef>

struct br_body {
  std::atomic<long> refs;
  size_t len;
  char data[];  // allocated with the struct
};

namespace br {
inline br_body *body_ref(br_body *b) {
  b->refs.fetch_add(1, std::memory_order_relaxed);
  return b;
}
void body_unref(br_body *b);
}  // namespace br
