// fuzz_common.h — helpers shared by the libFuzzer targets in native/fuzz/ (test code only).
//
// Every call into the code under test gets its own exactly-sized heap copy of the bytes, so
// AddressSanitizer reports a read one past `len` instead of it landing in the fuzzer's slack.
// A violated invariant prints what was checked and aborts (libFuzzer saves the input).
//
// BR_FUZZ_IGNORE (environment, comma-separated names) turns off named invariants that catch a
// known, reported bug, so a run can measure throughput or look for other bugs meanwhile:
//   BR_FUZZ_IGNORE=method-split,chunk-ext-split make fuzz
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

// True unless `name` is listed in BR_FUZZ_IGNORE.
inline bool enabled(const char *name) {
  static const std::string list = [] {
    const char *e = getenv("BR_FUZZ_IGNORE");
    return "," + std::string(e ? e : "") + ",";
  }();
  return list.find("," + std::string(name) + ",") == std::string::npos;
}

// Opt-in checks of properties that are desirable but not bugs when they fail (e.g. the same
// error status however the bytes were fragmented): on only if BR_FUZZ_STRICT lists the name.
inline bool strict(const char *name) {
  static const std::string list = [] {
    const char *e = getenv("BR_FUZZ_STRICT");
    return "," + std::string(e ? e : "") + ",";
  }();
  return list.find("," + std::string(name) + ",") != std::string::npos;
}

// An exactly-sized malloc'd copy (at least one byte allocated so the pointer is never null).
struct Exact {
  char *p;
  size_t n;
  Exact(const void *src, size_t len) : p(static_cast<char *>(malloc(len ? len : 1))), n(len) {
    if (len) memcpy(p, src, len);
  }
  ~Exact() { free(p); }
  Exact(const Exact &) = delete;
  Exact &operator=(const Exact &) = delete;
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
