// http_parser_fuzz.cc — libFuzzer target for br::parse_head (native/src/http_parser.h).
//
// Each input is parsed under three limit sets (the C ABI defaults, small ones, and ones derived
// from a hash of the input) and these invariants are checked:
//   * the verdict is 0, a head length in [1, len], or -400/-413/-414/-431/-501/-505;
//   * parsing is deterministic;
//   * an accepted head ends in CRLF CRLF, and method, target and every header name/value lie
//     inside buf[0, head_len) with the grammar the parser promises (method/name are tokens,
//     target has no CTL/SP/DEL, values have no CTL but HTAB and no surrounding OWS, name is
//     followed by ':'), within the limits; method_id, http10, chunked and content_length agree
//     with the bytes; exactly one Host in HTTP/1.1, at most one in 1.0; chunked excludes
//     Content-Length and HTTP/1.0;
//   * fragmentation: the parser restarts from the request start on every read, so the verdict
//     on a prefix must be consistent with the verdict on the whole input: a prefix of an
//     accepted head "needs more" (0) until the head is complete and then gives the same head
//     length; a rejected prefix means the whole input is rejected too. Every prefix is checked
//     (one byte at a time) for inputs up to kAllPrefixes bytes; longer ones are checked at a
//     bounded, deterministic set of split points derived from the input (see split_points), so
//     an execution costs O(len), not O(len^2). Each input gets its prefix checks under one of
//     the three limit sets, picked by its hash.
#include <cstring>

#include "../src/http_parser.h"
#include "fuzz_common.h"

FZ_HARNESS_BEGIN

namespace {

using br::Head;
using br::Limits;

constexpr Limits kSmall{16, 64, 4, 32};
constexpr size_t kMaxHeaders = 64;

bool is_tchar(unsigned char c) {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return c && strchr("!#$%&'*+-.^_`|~", c);
}

bool ieq(const char *a, size_t n, const char *lit) {
  if (strlen(lit) != n) return false;
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)a[i] | 0x20) != (unsigned char)lit[i]) return false;
  return true;
}

struct Result {
  int r;
  Head h;
  br_header hdrs[kMaxHeaders];
};

// Parses the first len bytes of the input in w, with nothing past them addressable.
int parse(fz::Window &w, size_t len, const Limits &lim, Result &out) {
  w.narrow(len);
  memset(&out.h, 0xA5, sizeof out.h);  // poison: fields the parser leaves alone stay visible
  out.r = br::parse_head(w.p, len, lim, &out.h, out.hdrs);
  return out.r;
}

bool valid_status(int r) {
  return r == -400 || r == -413 || r == -414 || r == -431 || r == -501 || r == -505;
}

void check_accepted(const char *buf, size_t len, const Limits &lim, const Result &res) {
  const Head &h = res.h;
  size_t hl = size_t(res.r);
  FZ_CHECK(h.head_len == hl && hl <= len && hl >= 16);  // "X / HTTP/1.0\r\n\r\n" is 16
  FZ_CHECK(!memcmp(buf + hl - 4, "\r\n\r\n", 4));
  // Method: a token right before one SP.
  FZ_CHECK(h.method_len > 0 && fz::inside(h.method, h.method_len, buf, hl));
  for (uint32_t i = 0; i < h.method_len; i++) FZ_CHECK(is_tchar((unsigned char)h.method[i]));
  FZ_CHECK(h.method[h.method_len] == ' ');
  static const char *kNames[] = {"", "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS",
                                 "CONNECT", "TRACE"};
  FZ_CHECK(h.method_id < BR_METHOD_COUNT);
  if (h.method_id != BR_METHOD_OTHER)
    FZ_CHECK(strlen(kNames[h.method_id]) == h.method_len &&
             !memcmp(kNames[h.method_id], h.method, h.method_len));
  else
    for (int i = 1; i < BR_METHOD_COUNT; i++)
      FZ_CHECK(!(strlen(kNames[i]) == h.method_len && !memcmp(kNames[i], h.method, h.method_len)));
  // Target: right after the method's SP, non-empty, no CTL/SP/DEL, within max_uri.
  FZ_CHECK(h.target == h.method + h.method_len + 1);
  FZ_CHECK(h.target_len > 0 && h.target_len <= lim.max_uri && fz::inside(h.target, h.target_len, buf, hl));
  for (uint32_t i = 0; i < h.target_len; i++) {
    unsigned char c = (unsigned char)h.target[i];
    FZ_CHECK(c > 0x20 && c != 0x7f);
  }
  const char *ver = h.target + h.target_len;
  // Any HTTP/1.x is served (a minor above 1 as 1.1, RFC 9110 2.5); other majors are refused.
  FZ_CHECK(!memcmp(ver, " HTTP/1.", 8) && ver[8] >= '0' && ver[8] <= '9' && !memcmp(ver + 9, "\r\n", 2));
  FZ_CHECK(h.http10 == (ver[8] == '0'));
  // Everything before the method is empty lines (RFC 9112 2.2).
  for (const char *p = buf; p < h.method; p += 2) FZ_CHECK(p[0] == '\r' && p[1] == '\n');
  // Headers.
  FZ_CHECK(h.n_headers <= lim.max_headers);
  int hosts = 0, cls = 0, tes = 0;
  const char *prev_end = ver + 11;
  for (uint32_t i = 0; i < h.n_headers; i++) {
    const br_header &x = res.hdrs[i];
    FZ_CHECK(x.name.n > 0 && fz::inside(x.name.p, x.name.n, buf, hl));
    FZ_CHECK(x.name.p == prev_end);  // lines are contiguous: nothing is skipped silently
    for (size_t j = 0; j < x.name.n; j++) FZ_CHECK(is_tchar((unsigned char)x.name.p[j]));
    FZ_CHECK(x.name.p[x.name.n] == ':');
    FZ_CHECK(fz::inside(x.value.p, x.value.n, buf, hl) && x.value.p > x.name.p + x.name.n);
    for (const char *q = x.name.p + x.name.n + 1; q < x.value.p; q++) FZ_CHECK(*q == ' ' || *q == '\t');
    if (x.value.n) {
      FZ_CHECK(x.value.p[0] != ' ' && x.value.p[0] != '\t');
      FZ_CHECK(x.value.p[x.value.n - 1] != ' ' && x.value.p[x.value.n - 1] != '\t');
    }
    for (size_t j = 0; j < x.value.n; j++) {
      unsigned char c = (unsigned char)x.value.p[j];
      FZ_CHECK((c >= 0x20 || c == '\t') && c != 0x7f);
    }
    const char *q = x.value.p + x.value.n;
    while (*q == ' ' || *q == '\t') q++;
    FZ_CHECK(q[0] == '\r' && q[1] == '\n');
    prev_end = q + 2;
    if (ieq(x.name.p, x.name.n, "host")) hosts++;
    if (ieq(x.name.p, x.name.n, "content-length")) cls++;
    if (ieq(x.name.p, x.name.n, "transfer-encoding")) tes++;
  }
  FZ_CHECK(prev_end + 2 == buf + hl);  // then the blank line, and the head ends
  FZ_CHECK(h.http10 ? hosts <= 1 : hosts == 1);
  FZ_CHECK(h.chunked == (tes > 0));
  if (h.chunked) FZ_CHECK(!h.http10 && cls == 0 && h.content_length == -1);
  FZ_CHECK((cls > 0) == (h.content_length >= 0));
  if (h.content_length > 0) FZ_CHECK(uint64_t(h.content_length) <= lim.max_body);
}

// Inputs up to this many bytes have every prefix re-parsed (one byte at a time).
constexpr size_t kAllPrefixes = 24;

// Split points for a longer input, at most 16, all in [0, len): the points where the parser's
// state changes meaning (around the head's end, the first/last CR and LF, the spaces of the
// request line, just past 32 bytes where a long method used to be refused early), the last byte,
// and four points picked by the input's hash. The fuzzer varies the input, so over a run the
// hash-picked points sweep every offset.
size_t split_points(const uint8_t *data, size_t len, int r, size_t *out) {
  size_t n = 0;
  auto add = [&](size_t k) {
    if (k >= len) return;
    for (size_t i = 0; i < n; i++)
      if (out[i] == k) return;
    out[n++] = k;
  };
  add(len - 1);
  if (r > 0) {
    add(size_t(r) - 1);
    add(size_t(r) - 2);
  }
  if (auto *p = static_cast<const uint8_t *>(memchr(data, '\r', len))) add(size_t(p - data) + 1);
  if (auto *p = static_cast<const uint8_t *>(memrchr(data, '\r', len))) add(size_t(p - data));
  if (auto *p = static_cast<const uint8_t *>(memrchr(data, '\n', len))) add(size_t(p - data));
  if (auto *p = static_cast<const uint8_t *>(memchr(data, ' ', len))) {
    add(size_t(p - data));
    size_t at = size_t(p - data) + 1;
    if (auto *q = static_cast<const uint8_t *>(memchr(data + at, ' ', len - at))) add(size_t(q - data));
  }
  add(33);
  uint64_t x = fz::fnv(data, len);
  for (int i = 0; i < 4; i++) {
    add(size_t(x % len));
    x = x * 6364136223846793005ull + 1442695040888963407ull;
  }
  return n;
}

void run(fz::Window &w, const uint8_t *data, size_t len, const Limits &lim, bool prefixes) {
  static Result full, again, pre;
  int r = parse(w, len, lim, full);
  FZ_CHECK(r == 0 || valid_status(r) || (r > 0 && size_t(r) <= len));
  if (r > 0) check_accepted(w.p, len, lim, full);

  FZ_CHECK(parse(w, len, lim, again) == r);
  if (r > 0) {
    FZ_CHECK(again.h.n_headers == full.h.n_headers && again.h.content_length == full.h.content_length);
    // Bytes after the head (a body, the next pipelined request) never change the head.
    static Result exact;
    FZ_CHECK(parse(w, size_t(r), lim, exact) == r);
    FZ_CHECK(exact.h.n_headers == full.h.n_headers && exact.h.content_length == full.h.content_length &&
             exact.h.chunked == full.h.chunked && exact.h.close == full.h.close);
  }

  if (!prefixes) return;
  auto check_prefix = [&](size_t k) {
    int rk = parse(w, k, lim, pre);
    if (r > 0) {
      if (k < size_t(r)) FZ_CHECK(rk == 0);  // a prefix of an acceptable head only needs more bytes
      else FZ_CHECK(rk == r);
    } else if (rk < 0) {
      FZ_CHECK(r < 0);  // once refused, more bytes never make the request acceptable
    } else if (rk > 0) {
      FZ_CHECK(false);  // an accepted prefix means the whole input has the same head
    }
  };
  if (len <= kAllPrefixes) {
    for (size_t k = 0; k < len; k++) check_prefix(k);
  } else {
    size_t pts[16];
    size_t n = split_points(data, len, r, pts);
    for (size_t i = 0; i < n; i++) check_prefix(pts[i]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  if (len > 4096) return -1;  // the default limits refuse any head this long (make fuzz: -max_len)
  fz::Window w(data, len);  // the parser never writes, so one copy serves every call
  // The prefix checks run under one of the three limit sets, picked by the input's hash (they
  // are most of the cost; over a run each set gets a third of the inputs).
  uint64_t x = fz::fnv(data, len);
  unsigned pick = unsigned(x >> 61) % 3;
  run(w, data, len, br::kDefaultLimits, pick == 0);
  run(w, data, len, kSmall, pick == 1);
  Limits derived{uint32_t(1 + x % 64), uint32_t((x >> 8) % 256), uint32_t((x >> 16) % 9),
                 uint64_t((x >> 24) % 128)};
  run(w, data, len, derived, pick == 2);
  return 0;
}
FZ_HARNESS_END
