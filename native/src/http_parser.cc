// http_parser.cc — see http_parser.h. Hot loops scan 16 bytes at a time with SSE2 where present.
#include "http_parser.h"

#include <cstring>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace br {
namespace {

constexpr long kMaxMethod = 32;      // longer methods: 501, longer than any we could route
constexpr long kMaxChunkLine = 1024; // chunk-size line incl. extensions

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
constexpr TokenTable kToken;

inline bool is_token(char c) { return kToken.t[(unsigned char)c]; }

const char *scan_token(const char *p, const char *end) {
  while (p < end && is_token(*p)) p++;
  return p;
}

// Case-insensitive compare against a lower-case literal made of letters, digits and '-'.
inline bool ieq(const char *a, size_t n, const char *lower, size_t ln) {
  if (n != ln) return false;
  for (size_t i = 0; i < n; i++)
    if ((a[i] | 0x20) != lower[i]) return false;
  return true;
}
#define IEQ(p, n, lit) ieq(p, n, lit, sizeof(lit) - 1)

// Stops at the first byte that cannot be in a request-target: CTL, SP, DEL or non-ASCII.
const char *scan_target(const char *p, const char *end) {
#ifdef __SSE2__
  // As signed bytes, CTL, SP and every byte >= 0x80 are all < 0x21.
  const __m128i bang = _mm_set1_epi8(0x21), del = _mm_set1_epi8(0x7f);
  while (end - p >= 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
    __m128i stop = _mm_or_si128(_mm_cmplt_epi8(x, bang), _mm_cmpeq_epi8(x, del));
    int m = _mm_movemask_epi8(stop);
    if (m) return p + __builtin_ctz(m);
    p += 16;
  }
#endif
  while (p < end && (unsigned char)*p > 0x20 && (unsigned char)*p < 0x7f) p++;
  return p;
}

// Host = uri-host [ ":" port ] (RFC 3986): reg-name, IPv4 or IP-literal characters only.
struct HostTable {
  bool t[256] = {};
  constexpr HostTable() {
    for (int c = '0'; c <= '9'; c++) t[c] = true;
    for (int c = 'a'; c <= 'z'; c++) t[c] = true;
    for (int c = 'A'; c <= 'Z'; c++) t[c] = true;
    for (const char *s = "-._~!$&'()*+,;=%:[]"; *s; s++) t[(unsigned char)*s] = true;
  }
};
constexpr HostTable kHost;

bool valid_host(const char *v, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!kHost.t[(unsigned char)v[i]]) return false;
  return true;
}

// Transfer-Encoding codings over all its field lines: chunked must come last and only once.
// A field line with no coding at all (empty, or only commas) still counts as present: ignoring
// it would let a request carry Transfer-Encoding past a front end that reads it differently.
struct Codings {
  bool present = false, any = false, chunked_last = false, other = false, chunked_twice = false;
  void add(const char *v, size_t n) {
    present = true;
    const char *p = v, *end = v + n;
    while (p < end) {
      while (p < end && (*p == ' ' || *p == '\t' || *p == ',')) p++;
      if (p == end) break;
      const char *t = p;
      while (p < end && *p != ',') p++;
      const char *te = p;
      while (te > t && (te[-1] == ' ' || te[-1] == '\t')) te--;
      bool chunked = IEQ(t, size_t(te - t), "chunked");
      if (chunked && chunked_last) chunked_twice = true;
      if (!chunked && any) other = true;  // a coding applied before chunked, or after it
      if (chunked && any && !chunked_last) other = true;
      any = true;
      chunked_last = chunked;
    }
  }
};

// Stops at the first byte that cannot be in a field value: CTL other than HTAB, or DEL.
const char *scan_value(const char *p, const char *end) {
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
    unsigned char c = (unsigned char)*p;
    if ((c < 0x20 && c != '\t') || c == 0x7f) break;
    p++;
  }
  return p;
}

uint32_t method_id(const char *m, size_t n) {
  switch (n) {
    case 3:
      if (!memcmp(m, "GET", 3)) return BR_METHOD_GET;
      if (!memcmp(m, "PUT", 3)) return BR_METHOD_PUT;
      break;
    case 4:
      if (!memcmp(m, "POST", 4)) return BR_METHOD_POST;
      if (!memcmp(m, "HEAD", 4)) return BR_METHOD_HEAD;
      break;
    case 5:
      if (!memcmp(m, "PATCH", 5)) return BR_METHOD_PATCH;
      if (!memcmp(m, "TRACE", 5)) return BR_METHOD_TRACE;
      break;
    case 6:
      if (!memcmp(m, "DELETE", 6)) return BR_METHOD_DELETE;
      break;
    case 7:
      if (!memcmp(m, "OPTIONS", 7)) return BR_METHOD_OPTIONS;
      if (!memcmp(m, "CONNECT", 7)) return BR_METHOD_CONNECT;
      break;
  }
  return BR_METHOD_OTHER;
}

// Comma-separated Connection tokens: close / keep-alive (others, e.g. upgrade, are ignored).
void connection_tokens(const char *v, size_t n, Head *h) {
  const char *p = v, *end = v + n;
  while (p < end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == ',')) p++;
    const char *t = p;
    while (p < end && *p != ',' && *p != ' ' && *p != '\t') p++;
    if (IEQ(t, size_t(p - t), "close")) h->close = true;
    else if (IEQ(t, size_t(p - t), "keep-alive")) h->keep_alive = true;
  }
}

// 1*DIGIT; -1 if malformed, -2 if it cannot fit.
int64_t parse_length(const char *v, size_t n) {
  if (n == 0) return -1;
  int64_t x = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned d = (unsigned char)v[i] - '0';
    if (d > 9) return -1;
    if (x > (INT64_MAX - 9) / 10) return -2;
    x = x * 10 + d;
  }
  return x;
}

// Checks "HTTP/" DIGIT "." DIGIT CRLF at p: 1 (and advances p) for HTTP/1.x, 0 when more
// bytes are needed, -400 when malformed, -505 for another major version. RFC 9110 2.5: a higher
// minor version (HTTP/1.2) is served as the highest we implement, 1.1.
int parse_version(const char *&p, const char *end, Head *h) {
  static const char kShape[] = "HTTP/0.0\r\n";
  size_t have = size_t(end - p) < 10 ? size_t(end - p) : 10;
  for (size_t i = 0; i < have; i++) {
    bool ok = (i == 5 || i == 7) ? (p[i] >= '0' && p[i] <= '9') : p[i] == kShape[i];
    if (!ok) return -400;
  }
  if (have < 10) return 0;
  if (p[5] != '1') return -505;
  h->http10 = p[7] == '0';
  p += 10;
  return 1;
}

}  // namespace

int parse_head(const char *buf, size_t len, const Limits &lim, Head *h, br_header *hdrs) {
  const char *p = buf, *end = buf + len;
  // RFC 9112 2.2: ignore empty lines before the request-line.
  while (end - p >= 2 && p[0] == '\r' && p[1] == '\n') p += 2;
  if (p == end || (end - p == 1 && *p == '\r')) return 0;

  // Verdicts never depend on where a read ended: every limit is checked the same way on a
  // complete head and on any prefix of it.
  const char *m = p;
  p = scan_token(p, end);
  if (p - m > kMaxMethod) return -501;
  if (p == end) return 0;
  if (*p != ' ' || p == m) return -400;
  h->method = m;
  h->method_len = uint32_t(p - m);
  h->method_id = method_id(m, p - m);
  p++;

  const char *t = p;
  p = scan_target(p, end);
  if (uint64_t(p - t) > lim.max_uri) return -414;
  if (p == end) return 0;
  if (*p != ' ' || p == t) return -400;
  h->target = t;
  h->target_len = uint32_t(p - t);
  p++;

  // "HTTP/" DIGIT "." DIGIT CRLF; "HTTP/1.1\r\n" is checked with two loads first.
  if (end - p >= 10 && !memcmp(p, "HTTP/1.1", 8) && p[8] == '\r' && p[9] == '\n') {
    h->http10 = false;
    p += 10;
  } else if (int r = parse_version(p, end, h); r <= 0) {
    return r;
  }

  h->content_length = -1;
  h->chunked = h->close = h->keep_alive = h->expect_continue = false;
  uint32_t n = 0, hosts = 0;
  bool bad_host = false;
  Codings te;
  const char *fields = p;
  // More bytes needed: unless the field lines already exceed the limit.
  auto more = [&]() { return uint64_t(end - fields) > lim.max_header_bytes ? -431 : 0; };
  for (;;) {
    if (uint64_t(p - fields) > lim.max_header_bytes) return -431;
    if (p == end) return more();
    if (*p == '\r') {
      if (end - p < 2) return 0;  // the blank line's CR: not counted, as in a complete head
      if (p[1] != '\n') return -400;
      p += 2;
      break;
    }
    const char *name = p;
    p = scan_token(p, end);
    if (p == end) return more();
    // Catches obs-fold (line starts with SP/HTAB), whitespace before ':' and bad name bytes.
    if (*p != ':' || p == name) return -400;
    size_t name_len = size_t(p - name);
    p++;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    const char *v = p;
    p = scan_value(p, end);
    if (p == end) return more();
    if (*p != '\r') return -400;  // bare LF, NUL or another control byte
    if (end - p < 2) return more();
    if (p[1] != '\n') return -400;  // bare CR
    const char *ve = p;
    while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t')) ve--;
    p += 2;
    if (n == lim.max_headers) return -431;
    size_t vn = size_t(ve - v);
    hdrs[n++] = br_header{{name, name_len}, {v, vn}};

    // Headers that change framing or connection handling, picked out by length first.
    switch (name_len) {
      case 4:
        if (IEQ(name, name_len, "host")) {
          hosts++;
          bad_host |= !valid_host(v, vn);
        }
        break;
      case 6:
        if (IEQ(name, name_len, "expect") && IEQ(v, vn, "100-continue")) h->expect_continue = true;
        break;
      case 10:
        if (IEQ(name, name_len, "connection")) connection_tokens(v, vn, h);
        break;
      case 14:
        if (IEQ(name, name_len, "content-length")) {
          int64_t cl = parse_length(v, vn);
          if (cl == -1) return -400;
          if (cl == -2) return -413;
          if (h->content_length >= 0 && h->content_length != cl) return -400;
          h->content_length = cl;
        }
        break;
      case 17:
        if (IEQ(name, name_len, "transfer-encoding")) te.add(v, vn);
        break;
    }
  }
  h->n_headers = n;
  h->head_len = uint32_t(p - buf);

  if (hosts > 1 || (!h->http10 && hosts == 0) || bad_host) return -400;
  if (te.present) {
    // With Content-Length, in HTTP/1.0, or without chunked last, the body's end is ambiguous:
    // the request-smuggling cases. Other codings before chunked are only unsupported.
    if (h->content_length >= 0 || h->http10 || !te.chunked_last) return -400;
    if (te.other || te.chunked_twice) return -501;
    h->chunked = true;
  }
  if (h->content_length > 0 && uint64_t(h->content_length) > lim.max_body) return -413;
  return int(h->head_len);
}

namespace {
enum : uint8_t { kSize, kData, kDataEnd, kTrailer };

// chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] ), up to end.
// The extensions are ignored, but only well-formed ones are accepted.
bool chunk_ext(const char *p, const char *end) {
  auto bws = [&] { while (p < end && (*p == ' ' || *p == '\t')) p++; };
  while (p < end) {
    bws();
    if (p == end || *p != ';') return false;  // also: whitespace after the size with no ';'
    p++;
    bws();
    const char *name = p;
    p = scan_token(p, end);
    if (p == name) return false;
    bws();
    if (p < end && *p == '=') {
      p++;
      bws();
      if (p < end && *p == '"') {
        for (p++;; p++) {
          if (p == end) return false;
          unsigned char c = (unsigned char)*p;
          if (c == '"') break;
          if (c == '\\') {
            if (++p == end || ((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) return false;
          } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
            return false;
          }
        }
        p++;
      } else {
        const char *val = p;
        p = scan_token(p, end);
        if (p == val) return false;
      }
    }
  }
  return true;
}

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c |= 0x20;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

int decode_chunked(char *req, size_t len, ChunkState &s, const Limits &lim) {
  for (;;) {
    switch (s.phase) {
      case kSize: {
        const char *line = req + s.rd, *end = req + len;
        const char *lf = static_cast<const char *>(memchr(line, '\n', end - line));
        if (!lf) return end - line > kMaxChunkLine ? -400 : 0;
        if (lf - line > kMaxChunkLine) return -400;
        const char *p = line;
        uint64_t size = 0;
        int d;
        while (p < lf && (d = hexval(*p)) >= 0) {
          if (size >> 59) return -413;
          size = size << 4 | uint64_t(d);
          p++;
        }
        if (p == line) return -400;
        if (!chunk_ext(p, lf - 1) || lf[-1] != '\r') return -400;
        s.rd = uint64_t(lf + 1 - req);
        if (size == 0) {
          s.phase = kTrailer;
          break;
        }
        if (s.wr - s.start + size > lim.max_body) return -413;
        s.left = size;
        s.phase = kData;
        break;
      }
      case kData: {
        uint64_t n = len - s.rd < s.left ? len - s.rd : s.left;
        if (s.wr != s.rd) memmove(req + s.wr, req + s.rd, n);
        s.wr += n;
        s.rd += n;
        s.left -= n;
        if (s.left) return 0;
        s.phase = kDataEnd;
        break;
      }
      case kDataEnd:
        if (len - s.rd < 2) return 0;
        if (req[s.rd] != '\r' || req[s.rd + 1] != '\n') return -400;
        s.rd += 2;
        s.phase = kSize;
        break;
      case kTrailer: {
        const char *line = req + s.rd, *end = req + len;
        const char *lf = static_cast<const char *>(memchr(line, '\n', end - line));
        if (!lf) {
          size_t n = size_t(end - line);
          if (n >= 2 && line[0] == '\r') return -400;  // not the blank line, not a field line
          // A lone CR may still be the blank line, which does not count against the limit.
          return n >= 2 && n + 1 + s.trailer_bytes > lim.max_header_bytes ? -431 : 0;
        }
        if (lf == line || lf[-1] != '\r') return -400;
        s.rd = uint64_t(lf + 1 - req);
        if (lf - line == 1) return 1;  // the empty line ends the message
        s.trailer_bytes += uint32_t(lf + 1 - line);
        if (s.trailer_bytes > lim.max_header_bytes) return -431;
        const char *p = scan_token(line, lf);
        if (p == line || *p != ':' || scan_value(p + 1, lf) != lf - 1) return -400;
        break;
      }
    }
  }
}

}  // namespace br
