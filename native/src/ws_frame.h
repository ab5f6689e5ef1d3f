// ws_frame.h — the RFC 6455 (section 5.2) frame format: parsing a client frame's header strictly,
// unmasking, and writing a server frame's header. Pure functions over bytes (fuzzed).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace br::ws {

enum : uint8_t { kCont = 0, kText = 1, kBinary = 2, kClose = 8, kPing = 9, kPong = 10 };
enum : uint16_t {
  kNormal = 1000, kGoingAway = 1001, kProtocolError = 1002, kNoStatus = 1005, kAbnormal = 1006,
  kInvalidData = 1007, kTooBig = 1009
};

struct FrameHead {
  bool fin;
  uint8_t opcode;
  uint8_t head_len;  // 6, 8 or 14 (client frames are always masked)
  uint8_t mask[4];
  uint64_t len;      // payload bytes
};

// Parses the header at p[0, n). Returns the header length (> 0), 0 when more bytes are
// needed, or -close code for a frame the connection must be failed for (1002): reserved bits
// (no extension is negotiated), reserved opcodes, an unmasked client frame, a fragmented or
// over-125-byte control frame, a length not in its minimal form or with the top bit set.
inline int parse_head(const uint8_t *p, size_t n, FrameHead *f) {
  if (n < 2) return 0;
  uint8_t b0 = p[0], b1 = p[1];
  f->fin = b0 & 0x80;
  f->opcode = b0 & 0x0F;
  if (b0 & 0x70) return -kProtocolError;
  if ((f->opcode > kBinary && f->opcode < kClose) || f->opcode > kPong) return -kProtocolError;
  if (!(b1 & 0x80)) return -kProtocolError;
  bool control = f->opcode >= kClose;
  uint64_t len = b1 & 0x7F;
  size_t at = 2;
  if (control && (!f->fin || len > 125)) return -kProtocolError;
  if (len == 126) {
    if (n < 4) return 0;
    len = uint64_t(p[2]) << 8 | p[3];
    if (len < 126) return -kProtocolError;
    at = 4;
  } else if (len == 127) {
    if (n < 10) return 0;
    len = 0;
    for (int i = 0; i < 8; i++) len = len << 8 | p[2 + i];
    if (len >> 63 || len < 65536) return -kProtocolError;
    at = 10;
  }
  if (n < at + 4) return 0;
  memcpy(f->mask, p + at, 4);
  f->len = len;
  f->head_len = uint8_t(at + 4);
  return int(at + 4);
}

// XORs p[0, n) with the mask in place (8 bytes at a time; the compiler vectorizes the rest).
inline void unmask(uint8_t *p, size_t n, const uint8_t mask[4]) {
  uint32_t m32;
  memcpy(&m32, mask, 4);
  uint64_t m64 = uint64_t(m32) << 32 | m32;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    memcpy(&v, p + i, 8);
    v ^= m64;
    memcpy(p + i, &v, 8);
  }
  for (; i < n; i++) p[i] ^= mask[i & 3];
}

// Writes an unmasked, final server frame header for len payload bytes; returns its length
// (2, 4 or 10). p needs room for 10 bytes.
inline size_t write_head(uint8_t *p, uint8_t opcode, uint64_t len) {
  p[0] = uint8_t(0x80 | opcode);
  if (len < 126) {
    p[1] = uint8_t(len);
    return 2;
  }
  if (len < 65536) {
    p[1] = 126;
    p[2] = uint8_t(len >> 8);
    p[3] = uint8_t(len);
    return 4;
  }
  p[1] = 127;
  for (int i = 0; i < 8; i++) p[2 + i] = uint8_t(len >> (56 - 8 * i));
  return 10;
}

// Close codes a peer may send (RFC 6455 7.4.1 and the IANA registry; 1004-1006 and 1015 are
// reserved and never go on the wire); 3000-4999 belong to libraries and applications.
inline bool valid_close_code(uint32_t c) {
  return (c >= 1000 && c <= 1003) || (c >= 1007 && c <= 1014) || (c >= 3000 && c <= 4999);
}

}  // namespace br::ws
