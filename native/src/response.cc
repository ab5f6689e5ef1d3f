// response.cc — see response.h.
#include "response.h"

#include <cstdio>
#include <cstring>

namespace br {
namespace {

const char *reason(uint32_t status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 426: return "Upgrade Required";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
  }
  return "Status";
}

// "HTTP/1.1 NNN Reason\r\n" into p (room for 64 bytes); returns its length.
size_t status_line(char *p, uint32_t status) {
  if (status == 200) {
    memcpy(p, "HTTP/1.1 200 OK\r\n", 17);
    return 17;
  }
  if (status < 100 || status > 999) status = 500;
  const char *r = reason(status);
  size_t rn = strlen(r);
  memcpy(p, "HTTP/1.1 ", 9);
  p[9] = char('0' + status / 100);
  p[10] = char('0' + status / 10 % 10);
  p[11] = char('0' + status % 10);
  p[12] = ' ';
  memcpy(p + 13, r, rn);
  memcpy(p + 13 + rn, "\r\n", 2);
  return 15 + rn;
}

size_t put_u64(char *p, uint64_t v) {
  char tmp[20];
  size_t n = 0;
  do tmp[n++] = char('0' + v % 10); while (v /= 10);
  for (size_t i = 0; i < n; i++) p[i] = tmp[n - 1 - i];
  return n;
}

constexpr char kClose[] = "Connection: close\r\n";
constexpr char kKeepAlive[] = "Connection: keep-alive\r\n";
constexpr char kLength[] = "Content-Length: ";
constexpr char kChunkedLine[] = "Transfer-Encoding: chunked\r\n";

}  // namespace

StaticResponse *static_new(uint32_t status, const char *content_type, const void *body, size_t len,
                           br_body *shared) {
  auto *s = new StaticResponse{};
  char line[64];
  s->tmpl.append(line, status_line(line, status));
  if (content_type && *content_type) {
    s->tmpl.append("Content-Type: ");
    s->tmpl.append(content_type);
    s->tmpl.append("\r\n");
  }
  s->tmpl.append(kLength, sizeof(kLength) - 1);
  s->tmpl.append(line, put_u64(line, shared ? shared->len : len));
  s->tmpl.append("\r\n");
  s->date_at = s->tmpl.len;
  s->tmpl.append("Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n\r\n");
  s->body_at = s->tmpl.len;
  if (shared) s->body = body_ref(shared);
  else if (len) s->tmpl.append(body, len);
  return s;
}

void static_free(StaticResponse *s) {
  if (s->body) body_unref(s->body);
  s->tmpl.release();
  delete s;
}

void write_static(OutQueue &q, const StaticResponse &s, uint8_t req, bool close, const DateCache &d) {
  if (!close && !(req & (kReqKeepAlive10 | kReqHead))) {  // the hot path
    char *p = q.inline_space(s.tmpl.len);
    memcpy(p, s.tmpl.data, s.tmpl.len);
    memcpy(p + s.date_at, d.line, DateCache::kLen);
  } else {
    const char *conn = close ? kClose : (req & kReqKeepAlive10) ? kKeepAlive : "";
    size_t cn = strlen(conn);
    size_t body = (req & kReqHead) ? 0 : s.tmpl.len - s.body_at;
    char *p = q.inline_space(s.date_at + DateCache::kLen + cn + 2 + body);
    memcpy(p, s.tmpl.data, s.date_at);
    p += s.date_at;
    memcpy(p, d.line, DateCache::kLen);
    p += DateCache::kLen;
    memcpy(p, conn, cn);
    memcpy(p + cn, "\r\n", 2);
    if (body) memcpy(p + cn + 2, s.tmpl.data + s.body_at, body);
  }
  if (s.body && !(req & kReqHead)) q.append_body(s.body, 0, s.body->len);
}

namespace {

// A dynamic response's head into p: status line, Date, the embedder's lines, framing, Connection.
char *head_into(char *p, uint32_t status, const char *lines, size_t n, int64_t length, uint8_t req,
                bool close, const DateCache &d) {
  p += status_line(p, status);
  memcpy(p, d.line, DateCache::kLen);
  p += DateCache::kLen;
  if (n) memcpy(p, lines, n);
  p += n;
  if (length >= 0) {
    memcpy(p, kLength, sizeof(kLength) - 1);
    p += sizeof(kLength) - 1;
    p += put_u64(p, uint64_t(length));
    *p++ = '\r';
    *p++ = '\n';
  } else if (length == kChunked) {
    memcpy(p, kChunkedLine, sizeof(kChunkedLine) - 1);
    p += sizeof(kChunkedLine) - 1;
  }
  if (close) {
    memcpy(p, kClose, sizeof(kClose) - 1);
    p += sizeof(kClose) - 1;
  } else if (req & kReqKeepAlive10) {
    memcpy(p, kKeepAlive, sizeof(kKeepAlive) - 1);
    p += sizeof(kKeepAlive) - 1;
  }
  *p++ = '\r';
  *p++ = '\n';
  return p;
}

}  // namespace

// Upper bound of everything head_into writes besides the embedder's lines.
constexpr size_t kHeadExtra = 64 + DateCache::kLen + 48 + sizeof(kKeepAlive) + 2;

void write_head(OutQueue &q, uint32_t status, const char *lines, size_t n, int64_t length,
                uint8_t req, bool close, const DateCache &d) {
  size_t room = kHeadExtra + n;
  char *p = q.inline_space(room);
  char *e = head_into(p, status, lines, n, length, req, close, d);
  q.trim(room - size_t(e - p));
}

void write_full(OutQueue &q, uint32_t status, const char *lines, size_t n, const char *body,
                size_t len, uint8_t req, bool close, const DateCache &d) {
  size_t copy = (req & kReqHead) ? 0 : len;  // HEAD: the length of the body it would get
  size_t room = kHeadExtra + n + copy;
  char *p = q.inline_space(room);  // one reservation: head and body are copied exactly once
  char *e = head_into(p, status, lines, n, int64_t(len), req, close, d);
  if (copy) memcpy(e, body, copy);
  q.trim(room - size_t(e + copy - p));
}

}  // namespace br
