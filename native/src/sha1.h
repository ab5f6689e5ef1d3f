// sha1.h — SHA-1 (FIPS 180-4) and base64, only for the WebSocket accept key (RFC 6455 4.2.2).
// SHA-1 is not used for anything security-relevant here: the accept key merely proves the
// server read the handshake, so a small portable implementation beats a crypto dependency.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace br {

class Sha1 {
 public:
  void update(const void *data, size_t n) {
    const uint8_t *p = static_cast<const uint8_t *>(data);
    total_ += n;
    while (n) {
      size_t take = 64 - fill_ < n ? 64 - fill_ : n;
      memcpy(block_ + fill_, p, take);
      fill_ += take;
      p += take;
      n -= take;
      if (fill_ == 64) {
        compress(block_);
        fill_ = 0;
      }
    }
  }
  void finish(uint8_t out[20]) {
    uint64_t bits = total_ * 8;
    uint8_t pad = 0x80;
    update(&pad, 1);
    uint8_t zero = 0;
    while (fill_ != 56) update(&zero, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; i++) len[i] = uint8_t(bits >> (56 - 8 * i));
    update(len, 8);
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 4; j++) out[4 * i + j] = uint8_t(h_[i] >> (24 - 8 * j));
  }

 private:
  static uint32_t rol(uint32_t x, int k) { return (x << k) | (x >> (32 - k)); }
  void compress(const uint8_t *b) {
    uint32_t w[80];
    for (size_t i = 0; i < 16; i++)
      w[i] = uint32_t(b[4 * i]) << 24 | uint32_t(b[4 * i + 1]) << 16 | uint32_t(b[4 * i + 2]) << 8 | b[4 * i + 3];
    for (int i = 16; i < 80; i++) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h_[0], bb = h_[1], c = h_[2], d = h_[3], e = h_[4];
    for (int i = 0; i < 80; i++) {
      uint32_t f, k;
      if (i < 20) f = (bb & c) | (~bb & d), k = 0x5A827999;
      else if (i < 40) f = bb ^ c ^ d, k = 0x6ED9EBA1;
      else if (i < 60) f = (bb & c) | (bb & d) | (c & d), k = 0x8F1BBCDC;
      else f = bb ^ c ^ d, k = 0xCA62C1D6;
      uint32_t t = rol(a, 5) + f + e + k + w[i];
      e = d;
      d = c;
      c = rol(bb, 30);
      bb = a;
      a = t;
    }
    h_[0] += a;
    h_[1] += bb;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
  }

  uint32_t h_[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  uint8_t block_[64];
  size_t fill_ = 0;
  uint64_t total_ = 0;
};

inline constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Standard base64 with padding; out needs 4 * ((n + 2) / 3) bytes. Returns the length written.
inline size_t base64_encode(const uint8_t *in, size_t n, char *out) {
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = uint32_t(in[i]) << 16 | (i + 1 < n ? uint32_t(in[i + 1]) << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
    out[o++] = kBase64[v >> 18 & 63];
    out[o++] = kBase64[v >> 12 & 63];
    out[o++] = i + 1 < n ? kBase64[v >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? kBase64[v & 63] : '=';
  }
  return o;
}

// The 6-bit value of a base64 character, or -1.
inline int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace br
