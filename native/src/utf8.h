// utf8.h — strict UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing past
// U+10FFFF), as RFC 6455 8.1 demands of text messages and close reasons. ASCII runs are skipped
// 8 bytes at a time, since most text is ASCII.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace br {

inline bool valid_utf8(const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t v;
      memcpy(&v, p + i, 8);
      if (!(v & 0x8080808080808080ull)) {
        i += 8;
        continue;
      }
    }
    uint8_t c = p[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t k;
    uint8_t lo = 0x80, hi = 0xBF;  // range of the second byte
    if (c >= 0xC2 && c <= 0xDF) k = 1;
    else if (c == 0xE0) k = 2, lo = 0xA0;
    else if (c == 0xED) k = 2, hi = 0x9F;  // no surrogates
    else if (c >= 0xE1 && c <= 0xEF) k = 2;
    else if (c == 0xF0) k = 3, lo = 0x90;
    else if (c == 0xF4) k = 3, hi = 0x8F;  // nothing past U+10FFFF
    else if (c >= 0xF1 && c <= 0xF3) k = 3;
    else return false;
    if (n - i <= k) return false;  // truncated sequence
    if (p[i + 1] < lo || p[i + 1] > hi) return false;
    for (size_t j = 2; j <= k; j++)
      if ((p[i + j] & 0xC0) != 0x80) return false;
    i += k + 1;
  }
  return true;
}

}  // namespace br
