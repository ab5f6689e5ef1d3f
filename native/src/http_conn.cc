// http_conn.cc — see http_conn.h. The hot path of a request: process → parse_head → dispatch
// → router → answer_static (C only) or a slot plus a br_request for the embedder's batch.
#include "http_conn.h"

#include <cstring>

#include "loop.h"
#include "response.h"
#include "ws_conn.h"

namespace br {
namespace {

// The origin-form path of a request-target: an absolute-form target (RFC 9112 3.2.2, what a
// client talking to a proxy sends) is routed by its path; the authority is not checked.
void origin_path(const char *&path, size_t &pn) {
  if (pn <= 7 || (memcmp(path, "http://", 7) != 0 && memcmp(path, "https://", 8) != 0)) return;
  const char *auth = static_cast<const char *>(memchr(path, ':', pn)) + 3;
  const char *slash = static_cast<const char *>(memchr(auth, '/', size_t(path + pn - auth)));
  if (slash) {
    pn -= size_t(slash - path);
    path = slash;
  } else {
    path = "/";
    pn = 1;
  }
}

// The kReq* flags of a request: what its answer must say about the connection.
uint8_t request_flags(const Head &h) {
  uint8_t req = 0;
  if (h.http10) {
    req |= kReqHttp10;
    if (!h.keep_alive || h.close) req |= kReqClose;
    else req |= kReqKeepAlive10;
  } else if (h.close) {
    req |= kReqClose;
  }
  if (h.method_id == BR_METHOD_HEAD) req |= kReqHead;
  return req;
}

void send_continue(br_loop *l, Conn *c, const Head &h) {
  if (!h.expect_continue || h.http10 || c->http.continue_sent || c->http.slots.count) return;
  c->http.continue_sent = true;
  c->out.append("HTTP/1.1 100 Continue\r\n\r\n", 25);
  mark_dirty(l, c);
}

// A request for the embedder: a waiting slot keeps its place in the answer order, and the batch
// gets a br_request of views into the receive buffer.
void to_embedder(br_loop *l, Conn *c, const Head &h, const Target &target, br_str path, br_str query,
                 br_str body, const br_str *params, uint32_t np, uint8_t req) {
  Slot &s = c->http.slots.push();
  s.req = req;
  c->in_batch++;
  br_request &r = l->reqs.emplace_back();
  r.conn = c->id;
  r.seq = s.seq;
  r.route = target.route;
  r.flags = ((req & kReqHttp10) ? BR_REQ_HTTP10 : 0) | ((req & kReqClose) ? BR_REQ_CLOSE : 0) |
            ((req & kReqHead) ? BR_REQ_HEAD : 0);
  r.n_headers = h.n_headers;
  r.n_params = np;
  r.method_id = h.method_id;
  r.method = br_str{h.method, h.method_len};
  r.path = path;
  r.query = query;
  r.body = body;
  r.headers = nullptr;  // set when the batch is handed over: the header array may still grow
  for (uint32_t i = 0; i < np; i++) r.params[i] = params[i];
  l->req_conn.push_back(c);
  l->req_hdr.push_back(uint32_t(l->n_hdrs));
  l->n_hdrs += h.n_headers;
}

void dispatch(br_loop *l, Conn *c, const Head &h, br_str body) {
  const char *path = h.target;
  size_t pn = h.target_len;
  origin_path(path, pn);
  br_str query = {nullptr, 0};
  if (const char *q = static_cast<const char *>(memchr(path, '?', pn))) {
    query = br_str{q + 1, size_t(path + pn - q - 1)};
    pn = size_t(q - path);
  }
  uint8_t req = request_flags(h);
  if (req & kReqClose) c->close_after = true;  // nothing after it is read

  br_str params[BR_MAX_PARAMS];
  uint32_t np = 0;
  uint32_t t = l->app->router.find(h.method_id, path, pn, params, &np);
  if (t == Router::kNone) return answer_static(l, c, no_route(l->app, path, pn), req);
  const Target &target = l->app->targets[t];
  if (target.st) return answer_static(l, c, target.st, req);
  if (target.ws) return ws_upgrade(l, c, h, body, t, req);
  to_embedder(l, c, h, target, br_str{path, pn}, query, body, params, np, req);
}

// Where the request that starts at base ends, and its body; 0 while bytes are missing, or
// -status. A chunked body is decoded in place as it arrives.
int frame_body(br_loop *l, Conn *c, char *base, size_t avail, const Head &h, size_t *total, br_str *body) {
  const Limits &lim = l->app->lim;
  *total = h.head_len;
  *body = br_str{nullptr, 0};
  if (h.chunked) {
    if (!c->http.in_chunked) chunk_begin(c->http.chunk, h.head_len);
    c->http.in_chunked = true;
    int d = decode_chunked(base, avail, c->http.chunk, lim);
    if (d <= 0) return d;
    c->http.in_chunked = false;
    *body = br_str{base + h.head_len, size_t(c->http.chunk.wr - h.head_len)};
    *total = size_t(c->http.chunk.rd);
  } else if (h.content_length > 0) {
    size_t want = h.head_len + size_t(h.content_length);
    if (avail < want) {
      c->need = want;
      return 0;
    }
    *body = br_str{base + h.head_len, size_t(h.content_length)};
    *total = want;
  }
  return 1;
}

}  // namespace

void fail(br_loop *l, Conn *c, int status) {
  answer_static(l, c, l->app->error(status), kReqClose);
  c->close_after = true;
}

void process(br_loop *l, Conn *c) {
  const Limits &lim = l->app->lim;
  while (!c->dead && !c->close_after && c->parsed < c->in.len) {
    if (c->ws.kind) return ws_process(l, c);
    if (c->http.slots.count >= kMaxSlots || c->out.bytes() >= l->app->cfg.send_buffer) {
      set_reading(l, c, false);  // backpressure: resumes when the answers drained
      return;
    }
    size_t hdr_room = (l->n_hdrs + lim.max_headers) * sizeof(br_header);
    if (hdr_room > l->hdrs.cap) {  // moves earlier headers: the batch refers to them by index
      l->hdrs.len = l->n_hdrs * sizeof(br_header);
      l->hdrs.reserve(hdr_room - l->hdrs.len);
    }
    char *base = c->in.data + c->parsed;
    size_t avail = c->in.len - c->parsed;
    Head h;
    int r = parse_head(base, avail, lim, &h, reinterpret_cast<br_header *>(l->hdrs.data) + l->n_hdrs);
    if (r == 0) return;
    if (r < 0) return fail(l, c, -r);
    size_t total;
    br_str body;
    int b = frame_body(l, c, base, avail, h, &total, &body);
    if (b < 0) return fail(l, c, -b);
    if (b == 0) return send_continue(l, c, h);
    c->need = 0;
    c->http.continue_sent = false;
    c->http.partial = false;
    c->parsed += total;
    bump(l->stats.requests);
    dispatch(l, c, h, body);
  }
}

}  // namespace br
