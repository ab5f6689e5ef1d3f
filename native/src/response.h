// response.h — response bytes assembled natively: status line, cached Date, the embedder's header
// lines, Content-Length or chunked framing, Connection, then the body — into one out queue.
#pragma once
#include <cstdint>

#include "body.h"
#include "buffer.h"
#include "date_cache.h"
#include "out_queue.h"

namespace br {

// What a response must know about the request it answers (kReq* flags, one byte per slot).
enum : uint8_t { kReqClose = 1, kReqKeepAlive10 = 2, kReqHead = 4, kReqHttp10 = 8 };

// A fixed response built once at registration: its bytes are copied per answer and only the
// Date is patched in, so a static route costs two memcpy.
struct StaticResponse {
  Buffer tmpl;      // status line, headers, Date placeholder (last), blank line, inline body
  size_t date_at;   // offset of the Date line in tmpl
  size_t body_at;   // offset just past the blank line
  br_body *body;    // shared body sent after tmpl, or null
};

StaticResponse *static_new(uint32_t status, const char *content_type, const void *body, size_t len,
                           br_body *shared);
void static_free(StaticResponse *s);

// Writes a static response; req holds the kReq* flags of the request it answers.
void write_static(OutQueue &q, const StaticResponse &s, uint8_t req, bool close, const DateCache &d);

// Framing of a dynamic response's body.
enum : int64_t { kChunked = -1, kUntilClose = -2 };

// Writes a head with Content-Length (length >= 0), chunked framing, or neither (kUntilClose).
void write_head(OutQueue &q, uint32_t status, const char *lines, size_t n, int64_t length,
                uint8_t req, bool close, const DateCache &d);

// Writes a complete response whose body is in memory (omitted for HEAD).
void write_full(OutQueue &q, uint32_t status, const char *lines, size_t n, const char *body,
                size_t len, uint8_t req, bool close, const DateCache &d);

}  // namespace br
