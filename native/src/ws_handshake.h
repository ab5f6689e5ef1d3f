// ws_handshake.h — the server side of the WebSocket opening handshake (RFC 6455 4.2): which
// requests may upgrade, and the 101 answer with Sec-WebSocket-Accept. No extensions or
// subprotocols are negotiated (the client gets neither header back, which RFC 6455 allows).
#pragma once
#include <cstddef>
#include <cstdint>

#include "bindrace.h"
#include "sha1.h"

namespace br::ws {

// Case-insensitive equality of an ASCII token with a lower-case literal.
inline bool token_is(const char *p, size_t n, const char *lower, size_t ln) {
  if (n != ln) return false;
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c >= 'A' && c <= 'Z') c = char(c + 32);
    if (c != lower[i]) return false;
  }
  return true;
}

// Does the comma-separated list v (a Connection or Upgrade value) contain token `lower`?
inline bool list_has(const char *v, size_t n, const char *lower, size_t ln) {
  size_t i = 0;
  while (i < n) {
    while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) i++;
    size_t s = i;
    while (i < n && v[i] != ',') i++;
    size_t e = i;
    while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t')) e--;
    if (e > s && token_is(v + s, e - s, lower, ln)) return true;
  }
  return false;
}

// A Sec-WebSocket-Key must be the base64 of exactly 16 bytes: 22 characters, the last of
// which carries only 2 bits (so its low 4 bits are zero), then "==".
inline bool valid_key(const char *k, size_t n) {
  if (n != 24 || k[22] != '=' || k[23] != '=') return false;
  for (size_t i = 0; i < 22; i++)
    if (base64_value(k[i]) < 0) return false;
  return (base64_value(k[21]) & 15) == 0;
}

// The verdict on an upgrade request: 0 upgrade, else the status to refuse it with.
enum : int { kUpgrade = 0, kBadRequest = 400, kVersion = 426 };

struct Handshake {
  const char *key = nullptr;
  size_t key_len = 0;
};

// Checks the headers of a GET HTTP/1.1 request without a body for a valid upgrade. Anything
// missing or repeated where it must be unique is a 400, except a version other than 13: 426
// with "Sec-WebSocket-Version: 13" tells the client which one to use (RFC 6455 4.4).
inline int check(const br_header *h, uint32_t n, Handshake *out) {
  bool upgrade = false, connection = false;
  int keys = 0, versions = 0;
  bool v13 = false;
  for (uint32_t i = 0; i < n; i++) {
    const br_str &name = h[i].name, &val = h[i].value;
    switch (name.n) {
      case 7:
        if (token_is(name.p, name.n, "upgrade", 7)) upgrade |= list_has(val.p, val.n, "websocket", 9);
        break;
      case 10:
        if (token_is(name.p, name.n, "connection", 10)) connection |= list_has(val.p, val.n, "upgrade", 7);
        break;
      case 17:
        if (token_is(name.p, name.n, "sec-websocket-key", 17)) {
          keys++;
          out->key = val.p;
          out->key_len = val.n;
        }
        break;
      case 21:
        if (token_is(name.p, name.n, "sec-websocket-version", 21)) {
          versions++;
          v13 = val.n == 2 && val.p[0] == '1' && val.p[1] == '3';
        }
        break;
    }
  }
  if (!upgrade || !connection || keys != 1 || !valid_key(out->key, out->key_len)) return kBadRequest;
  if (versions != 1 || !v13) return versions > 1 ? kBadRequest : kVersion;
  return kUpgrade;
}

// Sec-WebSocket-Accept: base64(SHA-1(key + the RFC's GUID)); writes 28 characters.
inline void accept_key(const char *key, size_t n, char out[28]) {
  static constexpr char kGuid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  Sha1 s;
  s.update(key, n);
  s.update(kGuid, sizeof kGuid - 1);
  uint8_t d[20];
  s.finish(d);
  base64_encode(d, 20, out);
}

constexpr char k101Head[] =
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ";
constexpr size_t k101Len = sizeof k101Head - 1 + 28 + 4;

// Writes the whole 101 response (k101Len bytes) for key into p.
inline void write_101(char *p, const char *key, size_t n) {
  memcpy(p, k101Head, sizeof k101Head - 1);
  p += sizeof k101Head - 1;
  accept_key(key, n, p);
  memcpy(p + 28, "\r\n\r\n", 4);
}

}  // namespace br::ws
