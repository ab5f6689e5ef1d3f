// http_parser.cc — the request-head parser of http_parser.h. Hot loops scan 16 bytes at a time
// with SSE2 where present (http_chars.h).
#include "http_parser.h"

#include <cstring>

#include "http_chars.h"

namespace br {
namespace {

constexpr long kMaxMethod = 32;  // longer methods: 501, longer than any we could route

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

// What the field lines say about framing and the connection, gathered over all of them.
struct Fields {
  uint32_t hosts = 0;
  bool bad_host = false;
  Codings te;
};

// Notes a field that changes framing or connection handling (picked out by name length first).
// Returns 0, or -status for a Content-Length that is malformed, too large or contradicts another.
int note_field(const char *name, size_t name_len, const char *v, size_t vn, Head *h, Fields *f) {
  switch (name_len) {
    case 4:
      if (IEQ(name, name_len, "host")) {
        f->hosts++;
        f->bad_host |= !valid_host(v, vn);
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
      if (IEQ(name, name_len, "transfer-encoding")) f->te.add(v, vn);
      break;
  }
  return 0;
}

// The request-line (RFC 9112 3): method SP request-target SP HTTP-version CRLF. Returns 1 and
// moves p past it, 0 when more bytes are needed, or -status.
int request_line(const char *&p, const char *end, const Limits &lim, Head *h) {
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
    return 1;
  }
  return parse_version(p, end, h);
}

// The verdict on a complete head's framing (RFC 9112 3.2, 6.1, 6.3): 0, or -status.
int framing(Head *h, const Fields &f, const Limits &lim) {
  if (f.hosts > 1 || (!h->http10 && f.hosts == 0) || f.bad_host) return -400;
  if (f.te.present) {
    // With Content-Length, in HTTP/1.0, or without chunked last, the body's end is ambiguous:
    // the request-smuggling cases. Other codings before chunked are only unsupported.
    if (h->content_length >= 0 || h->http10 || !f.te.chunked_last) return -400;
    if (f.te.other || f.te.chunked_twice) return -501;
    h->chunked = true;
  }
  if (h->content_length > 0 && uint64_t(h->content_length) > lim.max_body) return -413;
  return 0;
}

}  // namespace

int parse_head(const char *buf, size_t len, const Limits &lim, Head *h, br_header *hdrs) {
  const char *p = buf, *end = buf + len;
  // RFC 9112 2.2: ignore empty lines before the request-line.
  while (end - p >= 2 && p[0] == '\r' && p[1] == '\n') p += 2;
  if (p == end || (end - p == 1 && *p == '\r')) return 0;
  if (int r = request_line(p, end, lim, h); r <= 0) return r;

  h->content_length = -1;
  h->chunked = h->close = h->keep_alive = h->expect_continue = false;
  uint32_t n = 0;
  Fields f;
  const char *fields = p;
  // More bytes needed: unless the field lines already exceed the limit.
  auto more = [&]() { return uint64_t(end - fields) > lim.max_header_bytes ? -431 : 0; };
  for (;;) {  // one field line per turn, up to the blank line
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
    auto name_len = size_t(p - name);
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
    auto vn = size_t(ve - v);
    hdrs[n++] = br_header{{name, name_len}, {v, vn}};
    if (int r = note_field(name, name_len, v, vn, h, &f)) return r;
  }
  h->n_headers = n;
  h->head_len = uint32_t(p - buf);
  if (int r = framing(h, f, lim)) return r;
  return int(h->head_len);
}

}  // namespace br
