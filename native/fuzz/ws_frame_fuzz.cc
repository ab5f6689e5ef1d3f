// ws_frame_fuzz.cc — libFuzzer target for the WebSocket frame reader (native/src/ws_reader.h).
//
// Input: byte 0 picks the message limit (1 << (b % 24)), byte 1 a split seed; the rest is what
// a client sent. The bytes are fed once whole and once in pieces cut at seeded boundaries
// (every piece appended to the buffer the reader keeps, as the loop does), and checks:
//   * both runs give exactly the same events (kind, opcode, payload, close code) and the same
//     error — fragmentation never changes the outcome;
//   * every event's payload is a view inside the buffer, messages are within the limit, text
//     messages and close reasons are valid UTF-8, control payloads are at most 125 bytes;
//   * consumed <= len, the buffer never grows, and need (when given) exceeds what is buffered.
#include <cstring>
#include <vector>

#include "../src/ws_reader.h"
#include "fuzz_common.h"

FZ_HARNESS_BEGIN

namespace {

struct Ev {
  int kind, op, code;
  size_t len;
  uint64_t hash;  // of the payload: equal events without a copy of every payload
  bool operator==(const Ev &o) const = default;
};

struct Outcome {
  std::vector<Ev> evs;
  int error = 0;
  bool closed = false;
};

// Runs the reader over in, delivered in pieces ending at cuts (ascending, last = in size). w is
// the connection's buffer from `parsed` on, as large as the whole input; only its first len bytes
// are addressable, so ASan reports any read past what was buffered.
Outcome run(fz::Window &w, const uint8_t *in, const std::vector<size_t> &cuts, uint64_t max) {
  Outcome o;
  br::ws::ReadState st;
  size_t fed = 0, len = 0;
  for (size_t cut : cuts) {
    w.narrow(w.cap);
    memcpy(w.p + len, in + fed, cut - fed);
    len += cut - fed;
    fed = cut;
    w.narrow(len);
    auto *b = reinterpret_cast<uint8_t *>(w.p);  // the reader unmasks in place
    auto sink = [&](br::ws::EventKind k, uint8_t op, const uint8_t *p, size_t pn, uint16_t code) {
      FZ_CHECK(fz::inside(p, pn, b, len));
      if (k == br::ws::kEvMessage) {
        FZ_CHECK(pn <= max && (op == br::ws::kText || op == br::ws::kBinary));
        if (op == br::ws::kText) FZ_CHECK(br::valid_utf8(p, pn));
      } else {
        FZ_CHECK(pn <= 125);
      }
      if (k == br::ws::kEvClose) FZ_CHECK(code == br::ws::kNoStatus || br::ws::valid_close_code(code));
      o.evs.push_back(Ev{k, op, code, pn, fz::fnv(p, pn)});
    };
    br::ws::ReadResult r = br::ws::read_frames(b, len, st, max, sink);
    FZ_CHECK(r.consumed <= r.len && r.len <= len);
    FZ_CHECK(st.have <= r.len - r.consumed);
    if (r.need) FZ_CHECK(r.need > r.len - r.consumed);
    if (r.error || r.closed) {
      o.error = r.error;
      o.closed = r.closed;
      return o;
    }
    memmove(w.p, w.p + r.consumed, r.len - r.consumed);
    len = r.len - r.consumed;
  }
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  if (len < 2 || len > 65536) return -1;
  uint64_t max = uint64_t(1) << (data[0] % 24);
  uint32_t seed = data[1];
  const uint8_t *in = data + 2;
  size_t n = len - 2;
  fz::Window w(n);
  Outcome whole = run(w, in, {n}, max);
  std::vector<size_t> cuts;
  for (size_t at = 0; at < n;) {
    seed = seed * 1103515245u + 12345u;
    at += 1 + (seed >> 16) % 17;  // pieces of 1..17 bytes
    cuts.push_back(at < n ? at : n);
  }
  if (cuts.empty()) cuts.push_back(0);
  Outcome pieces = run(w, in, cuts, max);
  FZ_CHECK(whole.error == pieces.error && whole.closed == pieces.closed);
  FZ_CHECK(whole.evs == pieces.evs);
  // One byte at a time too, for short inputs (the exhaustive split the design asks for).
  if (n <= 256) {
    std::vector<size_t> every;
    every.reserve(n);
    for (size_t i = 1; i <= n; i++) every.push_back(i);
    if (every.empty()) every.push_back(0);
    Outcome bytes = run(w, in, every, max);
    FZ_CHECK(whole.error == bytes.error && whole.closed == bytes.closed && whole.evs == bytes.evs);
  }
  return 0;
}
FZ_HARNESS_END
