// http_parser.h — strict HTTP/1.1 request-head parser (RFC 9112) and in-place chunked decoder.
// Zero-copy: everything it reports points into the caller's buffer. It parses from the start of
// a request each time more bytes arrive, so any fragmentation works without saved state.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bindrace.h"

namespace br {

struct Limits {
  uint32_t max_uri, max_header_bytes, max_headers;
  uint64_t max_body;
};

// What an app gets for a limit its br_config leaves 0 (the fuzz targets use them too).
constexpr Limits kDefaultLimits{8192, 16384, 64, 1 << 20};

struct Head {
  const char *method, *target;
  uint32_t method_len, target_len, method_id;
  uint32_t n_headers;
  uint32_t head_len;        // bytes through the blank line ending the head
  int64_t content_length;   // -1: none
  bool http10, chunked, close, keep_alive, expect_continue;
};

// Parses the head at buf[0, len) into h, headers into hdrs (room for lim.max_headers).
// Returns the head length (> 0), 0 when more bytes are needed, or -status (400, 413, 414, 431,
// 501, 505) for a request the server must refuse.
int parse_head(const char *buf, size_t len, const Limits &lim, Head *h, br_header *hdrs);

// Decoding state of a chunked body; offsets are from the start of the request.
struct ChunkState {
  uint64_t start, rd, wr, left;  // body start, next raw byte, end of decoded body, chunk bytes left
  uint32_t trailer_bytes;
  uint8_t phase;
};

// Starts decoding a chunked body that begins at offset body.
inline void chunk_begin(ChunkState &s, uint64_t body) { s = ChunkState{body, body, body, 0, 0, 0}; }

// Decodes req[s.rd, len) in place (decoded bytes move down to s.wr). Returns 1 when the body and
// trailers are complete (the request ends at s.rd), 0 when more bytes are needed, or -status.
int decode_chunked(char *req, size_t len, ChunkState &s, const Limits &lim);

}  // namespace br
