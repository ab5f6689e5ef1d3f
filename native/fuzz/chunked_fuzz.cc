// chunked_fuzz.cc — libFuzzer target for br::decode_chunked (native/src/http_parser.h).
//
// Input: byte 0 picks where the body starts in the request buffer (0..31 filler bytes standing
// for the head); the rest is the raw chunked body. It is decoded in place under three limit sets
// (defaults, small, derived from the input's hash), and these invariants are checked:
//   * the verdict is 1, 0, -400, -413 or -431 and start <= wr <= rd <= len always;
//   * the decoded length wr - start never exceeds max_body;
//   * the head's bytes [0, start) are never written;
//   * on 1: an independent re-scan of the raw bytes [start, rd) (size lines, data, CRLFs,
//     trailer lines, blank line) gives exactly the decoded bytes [start, wr);
//   * fragmentation: decoding the same bytes in fragments (state carried over, as the event
//     loop does) gives the same verdict, rd, wr and decoded bytes as one call; a fragment that
//     already finished or failed must agree with the whole. Bodies up to kAllSplits bytes are
//     split at every offset and also fed one byte at a time; longer ones are split in two at a
//     bounded, deterministic set of points derived from the input (see split_points) and in
//     three at two of them, so an execution costs O(len), not O(len^2). Each input gets its
//     fragmentation checks under one of the three limit sets, picked by its hash.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../src/http_parser.h"
#include "fuzz_common.h"

FZ_HARNESS_BEGIN

namespace {

using br::ChunkState;
using br::Limits;

constexpr Limits kSmall{16, 64, 4, 32};

struct Outcome {
  int r;
  ChunkState s;
  std::string decoded;  // the decoded body [start, wr) the loop would hold
};

bool valid(int r) { return r == 1 || r == 0 || r == -400 || r == -413 || r == -431; }

void check_state(const ChunkState &s, size_t start, size_t len, const Limits &lim) {
  FZ_CHECK(s.start == start);
  FZ_CHECK(s.start <= s.wr && s.wr <= s.rd && s.rd <= len);
  FZ_CHECK(s.wr - s.start <= lim.max_body);
}

// Feeds raw[0, cuts[i]) for each cut in turn, carrying the state along, like the event loop
// appending reads to one buffer: w holds all of raw, and each call sees only [0, cut) (the rest
// is poisoned). Stops at the first non-zero verdict.
void feed(fz::Window &w, const std::string &raw, size_t start, const size_t *cuts, size_t ncuts,
          const Limits &lim, Outcome &o) {
  w.reset(raw.data());
  o.r = 0;
  br::chunk_begin(o.s, start);
  for (size_t i = 0; i < ncuts; i++) {
    size_t cut = cuts[i];
    w.narrow(cut);
    o.r = br::decode_chunked(w.p, cut, o.s, lim);
    FZ_CHECK(valid(o.r));
    check_state(o.s, start, cut, lim);
    FZ_CHECK(!memcmp(w.p, raw.data(), start));  // the head is never touched
    if (o.r != 0) break;
  }
  if (o.r >= 0) o.decoded.assign(w.p + start, o.s.wr - start);
}

// Re-scans raw[start, end) of a body the decoder accepted and returns the chunk data.
std::string rescan(const std::string &raw, size_t start, size_t end) {
  std::string out;
  size_t p = start;
  auto line_end = [&](size_t from) {  // index of the CRLF ending the line at from
    size_t lf = raw.find('\n', from);
    FZ_CHECK(lf != std::string::npos && lf < end && lf > from && raw[lf - 1] == '\r');
    for (size_t i = from; i < lf - 1; i++) {
      unsigned char c = (unsigned char)raw[i];
      FZ_CHECK((c >= 0x20 || c == '\t') && c != 0x7f);  // no CTL in size lines or trailers
    }
    return lf - 1;
  };
  for (;;) {
    size_t le = line_end(p);
    uint64_t size = 0;
    size_t q = p;
    for (; q < le && isxdigit((unsigned char)raw[q]); q++)
      size = size * 16 + uint64_t(isdigit((unsigned char)raw[q]) ? raw[q] - '0' : (raw[q] | 0x20) - 'a' + 10);
    FZ_CHECK(q > p);
    p = le + 2;
    if (size == 0) break;
    FZ_CHECK(p + size + 2 <= end);
    out.append(raw, p, size);
    p += size;
    FZ_CHECK(raw[p] == '\r' && raw[p + 1] == '\n');
    p += 2;
  }
  for (;;) {  // trailer lines, then the blank line
    size_t le = line_end(p);
    if (le == p) {
      p += 2;
      break;
    }
    FZ_CHECK(raw.find(':', p) < le);
    p = le + 2;
  }
  FZ_CHECK(p == end);
  return out;
}

void same(const Outcome &a, const Outcome &b) {
  FZ_CHECK(a.r == b.r);
  if (a.r < 0) return;
  FZ_CHECK(a.s.rd == b.s.rd && a.s.wr == b.s.wr && a.s.left == b.s.left && a.s.phase == b.s.phase);
  FZ_CHECK(a.decoded == b.decoded);
}

// Bodies up to this many bytes are split at every offset and fed one byte at a time.
constexpr size_t kAllSplits = 32;

// Split points in (start, len) for a longer body, at most 16: around the first size line's end
// (its CR and LF), the first chunk's data end, the last CR and LF (the final CRLF of the
// trailers), the byte after 1024 (the size-line length bound), the last byte, and four points
// picked by the input's hash (over a run they sweep every offset).
size_t split_points(const std::string &raw, size_t start, size_t *out) {
  size_t len = raw.size(), n = 0;
  auto add = [&](size_t k) {
    if (k <= start || k >= len) return;
    for (size_t i = 0; i < n; i++)
      if (out[i] == k) return;
    out[n++] = k;
  };
  add(len - 1);
  size_t cr = raw.find('\r', start);
  if (cr != std::string::npos) {
    add(cr);
    add(cr + 1);
    add(cr + 2);
    uint64_t size = strtoull(raw.c_str() + start, nullptr, 16);
    if (size < len) add(cr + 2 + size);
  }
  size_t lcr = raw.rfind('\r');
  if (lcr != std::string::npos && lcr >= start) {
    add(lcr);
    add(lcr + 1);
  }
  add(start + 1025);
  uint64_t x = fz::fnv(reinterpret_cast<const uint8_t *>(raw.data()), len);
  for (int i = 0; i < 4; i++) {
    add(start + 1 + size_t(x % (len - start)));
    x = x * 6364136223846793005ull + 1442695040888963407ull;
  }
  return n;
}

void run(fz::Window &w, const std::string &raw, size_t start, const Limits &lim, bool splits) {
  static Outcome one, frag;
  size_t len = raw.size();
  feed(w, raw, start, &len, 1, lim, one);
  if (one.r == 1) {
    std::string body = rescan(raw, start, one.s.rd);
    FZ_CHECK(body == one.decoded);
  }

  if (!splits) return;
  auto compare = [&](const size_t *cuts, size_t ncuts) {
    feed(w, raw, start, cuts, ncuts, lim, frag);
    if (frag.r < 0) FZ_CHECK(one.r < 0);  // refused early: the whole input is refused too
    else same(frag, one);  // finished early (the whole input finishes at the same place) or not
  };
  size_t body = len - start;
  if (body <= kAllSplits) {
    for (size_t k = start; k < len; k++) {
      size_t cuts[2] = {k, len};
      compare(cuts, 2);
    }
    static std::vector<size_t> bytes;
    bytes.clear();
    for (size_t k = start; k <= len; k++) bytes.push_back(k);
    compare(bytes.data(), bytes.size());
  } else {
    size_t pts[16];
    size_t n = split_points(raw, start, pts);
    for (size_t i = 0; i < n; i++) {
      size_t cuts[2] = {pts[i], len};
      compare(cuts, 2);
    }
    if (n >= 2) {
      size_t cuts[3] = {std::min(pts[n - 2], pts[n - 1]), std::max(pts[n - 2], pts[n - 1]), len};
      compare(cuts, 3);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  if (len < 1 || len > 8192) return -1;
  size_t start = data[0] % 32;
  std::string raw(start, 'H');
  raw.append(reinterpret_cast<const char *>(data + 1), len - 1);
  fz::Window w(raw.size());
  // The fragmentation checks run under one of the three limit sets, picked by the input's hash
  // (they are most of the cost; over a run each set gets a third of the inputs).
  uint64_t x = fz::fnv(data, len);
  unsigned pick = unsigned(x >> 61) % 3;
  run(w, raw, start, br::kDefaultLimits, pick == 0);
  run(w, raw, start, kSmall, pick == 1);
  run(w, raw, start, Limits{8192, uint32_t(x % 200), 64, uint64_t((x >> 8) % 100)}, pick == 2);
  return 0;
}
FZ_HARNESS_END
