// fuzz_common.h — helpers shared by the libFuzzer targets in native/fuzz/ (test code only).
//
// Every call into the code under test sees its bytes end exactly where its `len` ends: an input
// is copied once into its own heap block (Window) and each call narrows the window to the bytes
// it may read, poisoning the rest, so AddressSanitizer reports a read one past `len` instead of
// it landing in the fuzzer's slack or in bytes a later fragment will bring. (One block per input
// instead of one malloc per call: ASan's malloc records a stack trace, which cost more than the
// parsing itself.)
//
// Harness code (this header and each target's checks) is excluded from coverage instrumentation
// (FZ_HARNESS_BEGIN/END around it): its edges and comparisons are not what the fuzzer should
// steer by, and their trace-cmp callbacks cost more time than the code under test.
// A violated invariant prints what was checked and aborts (libFuzzer saves the input).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sanitizer/asan_interface.h>  // ASAN_(UN)POISON_MEMORY_REGION; no-ops without ASan

#define FZ_HARNESS_BEGIN \
  _Pragma("clang attribute push(__attribute__((no_sanitize(\"coverage\"))), apply_to = function)")
#define FZ_HARNESS_END _Pragma("clang attribute pop")

FZ_HARNESS_BEGIN
namespace fz {

[[noreturn]] inline void fail(const char *what, const char *file, int line) {
  fprintf(stderr, "\n*** invariant violated at %s:%d: %s\n", file, line, what);
  fflush(stderr);
  abort();
}
#define FZ_CHECK(cond)                                   \
  do {                                                   \
    if (!(cond)) ::fz::fail(#cond, __FILE__, __LINE__);  \
  } while (0)

// A heap block of exactly `cap` bytes (ASan's redzone starts right after it) of which only the
// first `n` are addressable: narrow(k) poisons [k, cap), so a read past k is reported exactly as
// if the block were k bytes long. The poisoned bytes keep their contents (e.g. the rest of a
// request that a later read would append).
struct Window {
  char *p;
  size_t cap, n;
  explicit Window(size_t cap_) : p(static_cast<char *>(malloc(cap_ ? cap_ : 1))), cap(cap_), n(cap_) {}
  Window(const void *src, size_t len) : Window(len) {
    if (len) memcpy(p, src, len);
  }
  ~Window() {
    ASAN_UNPOISON_MEMORY_REGION(p, cap);
    free(p);
  }
  Window(const Window &) = delete;
  Window &operator=(const Window &) = delete;
  void narrow(size_t k) {
    ASAN_UNPOISON_MEMORY_REGION(p, cap);
    if (k < cap) ASAN_POISON_MEMORY_REGION(p + k, cap - k);
    n = k;
  }
  // Makes all `cap` bytes addressable and overwrites them with src.
  void reset(const void *src) {
    ASAN_UNPOISON_MEMORY_REGION(p, cap);
    if (cap) memcpy(p, src, cap);
    n = cap;
  }
};

inline bool inside(const void *p, size_t n, const void *base, size_t len) {
  auto a = reinterpret_cast<uintptr_t>(p), b = reinterpret_cast<uintptr_t>(base);
  return n == 0 ? (a >= b && a <= b + len) || p == nullptr : a >= b && a + n <= b + len;
}

inline uint64_t fnv(const uint8_t *d, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ d[i]) * 1099511628211ull;
  return h;
}

}  // namespace fz
FZ_HARNESS_END
