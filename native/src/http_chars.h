// http_chars.h — the character classes of HTTP (RFC 9110 5.6.2, 5.5) as table lookups and
// 16-bytes-at-a-time scans, shared by the head parser and the chunked decoder.
#pragma once
#include <cstddef>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace br {

// tchar per RFC 9110 5.6.2.
struct TokenTable {
  bool t[256] = {};
  constexpr TokenTable() {
    for (int c = '0'; c <= '9'; c++) t[c] = true;
    for (int c = 'a'; c <= 'z'; c++) t[c] = true;
    for (int c = 'A'; c <= 'Z'; c++) t[c] = true;
    for (const char *s = "!#$%&'*+-.^_`|~"; *s; s++) t[(unsigned char)*s] = true;
  }
};
inline constexpr TokenTable kToken;

inline bool is_token(char c) { return kToken.t[(unsigned char)c]; }

inline const char *scan_token(const char *p, const char *end) {
  while (p < end && is_token(*p)) p++;
  return p;
}

// Stops at the first byte that cannot be in a field value: CTL other than HTAB, or DEL.
inline const char *scan_value(const char *p, const char *end) {
#ifdef __SSE2__
  const __m128i us = _mm_set1_epi8(0x1f), del = _mm_set1_epi8(0x7f), tab = _mm_set1_epi8(0x09);
  while (end - p >= 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    __m128i ctl = _mm_andnot_si128(_mm_cmpeq_epi8(x, tab), _mm_cmpeq_epi8(_mm_min_epu8(x, us), x));
    int m = _mm_movemask_epi8(_mm_or_si128(ctl, _mm_cmpeq_epi8(x, del)));
    if (m) return p + __builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < end) {
    auto c = (unsigned char)*p;
    if ((c < 0x20 && c != '\t') || c == 0x7f) break;
    p++;
  }
  return p;
}

}  // namespace br
