// buffer.h — a growable byte buffer in malloc'd memory (realloc may move it; no exceptions).
#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace br {

struct Buffer {
  char *data = nullptr;
  size_t len = 0, cap = 0;

  // Makes room for n more bytes; out of memory is fatal like in any allocator-backed server.
  void reserve(size_t n) {
    if (len + n <= cap) return;
    size_t c = cap ? cap : 1024;
    while (c < len + n) c *= 2;
    char *d = static_cast<char *>(realloc(data, c));
    if (!d) abort();
    data = d;
    cap = c;
  }
  void append(const void *p, size_t n) {
    if (!n) return;
    reserve(n);
    memcpy(data + len, p, n);
    len += n;
  }
  void append(const char *s) { append(s, strlen(s)); }
  // Drops the memory when it grew past keep, so one large request does not pin it forever.
  void shrink(size_t keep) {
    if (cap > keep && len == 0) release();
  }
  void release() {
    free(data);
    data = nullptr;
    len = cap = 0;
  }
};

}  // namespace br
