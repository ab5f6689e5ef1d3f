// http_chunked.cc — the chunked request-body decoder of http_parser.h (RFC 9112 7.1). It decodes
// in place, moving each chunk's data down over the framing, so the body ends up as one view.
#include <cstring>

#include "http_chars.h"
#include "http_parser.h"

namespace br {
namespace {

constexpr long kMaxChunkLine = 1024;  // chunk-size line incl. extensions

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
          if (c == '\\') {  // quoted-pair: any visible byte, SP or HTAB may follow
            p++;
            if (p == end || ((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f) return false;
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
