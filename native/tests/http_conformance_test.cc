// http_conformance_test.cc — RFC 9112 message-parsing conformance table for the native parser
// (br::parse_head + br::decode_chunked, native/src/http_parser.h). Built with ASan+UBSan by
// `make test-native`.
//
// Each row (http_conformance_rows.h) is request bytes and the expected outcome of feeding them to
// a connection, modelled exactly on process() in native/src/http_conn.cc: parse the head from
// the request start, then the body (Content-Length, or chunked decoded in place with the state
// carried between reads), answer, advance, repeat for pipelined requests; stop at the first
// refusal. Outcomes:
//   OK(method, target, header count, body)   a request accepted
//   ST(400)  / ANY({400, 501})               refused with that status (any of those)
//   MORE                                     bytes left over that need more input
// Every row is also fed split in two at every byte boundary and one byte at a time; the verdict
// must be the same as for one read (the parser promises any fragmentation works).
//
// Where the parser and RFC 9112 disagree and the RFC is clear, the row holds the RFC's result
// and fails until the parser is fixed; the `ref` column names the section.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../src/http_parser.h"
#include "http_conformance_rows.h"

namespace {

// Feeds raw in reads ending at each cut (the last cut is raw.size()), like the event loop.
std::vector<Out> feed(const std::string &raw, const std::vector<size_t> &cuts, const br::Limits &lim) {
  std::vector<Out> outs;
  std::string buf;
  size_t parsed = 0, prev = 0;
  bool in_chunked = false;
  br::ChunkState cs{};
  std::vector<br_header> hdrs(lim.max_headers ? lim.max_headers : 1);
  for (size_t cut : cuts) {
    buf.append(raw, prev, cut - prev);
    prev = cut;
    while (parsed < buf.size()) {
      size_t avail = buf.size() - parsed;
      char *tmp = static_cast<char *>(malloc(avail));  // exact size: ASan sees overreads
      memcpy(tmp, buf.data() + parsed, avail);
      br::Head h;
      int r = br::parse_head(tmp, avail, lim, &h, hdrs.data());
      if (r == 0) {
        free(tmp);
        break;
      }
      if (r < 0) {
        free(tmp);
        outs.push_back(ST(-r));
        return outs;
      }
      Out o = OK(std::string(h.method, h.method_len), std::string(h.target, h.target_len), int(h.n_headers));
      for (uint32_t i = 0; i < h.n_headers; i++)
        o.headers.emplace_back(std::string(hdrs[i].name.p, hdrs[i].name.n),
                               std::string(hdrs[i].value.p, hdrs[i].value.n));
      size_t total = h.head_len;
      bool wait = false;
      if (h.chunked) {
        if (!in_chunked) br::chunk_begin(cs, h.head_len);
        in_chunked = true;
        int d = br::decode_chunked(tmp, avail, cs, lim);
        memcpy(&buf[parsed], tmp, avail);  // keep what was decoded in place
        if (d < 0) {
          free(tmp);
          outs.push_back(ST(-d));
          return outs;
        }
        if (d == 0) {
          wait = true;
        } else {
          in_chunked = false;
          o.body.assign(tmp + h.head_len, size_t(cs.wr - h.head_len));
          total = size_t(cs.rd);
        }
      } else if (h.content_length > 0) {
        size_t want = h.head_len + size_t(h.content_length);
        if (avail < want) wait = true;
        else o.body.assign(tmp + h.head_len, size_t(h.content_length)), total = want;
      }
      free(tmp);
      if (wait) break;
      outs.push_back(std::move(o));
      parsed += total;
    }
  }
  if (parsed < buf.size()) outs.push_back(MORE);
  return outs;
}

std::string show(const std::string &s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '\r') o += "\\r";
    else if (c == '\n') o += "\\n";
    else if (c == '\t') o += "\\t";
    else if (c == '\\') o += "\\\\";
    else if (c < 0x20 || c >= 0x7f) {
      char b[8];
      snprintf(b, sizeof b, "\\x%02x", c);
      o += b;
    } else o += char(c);
  }
  return o;
}

std::string show(const Out &o) {
  switch (o.kind) {
    case Out::kMore: return "needs more";
    case Out::kStatus: {
      std::string s;
      for (int x : o.status) s += (s.empty() ? "" : "|") + std::to_string(x);
      return s;
    }
    case Out::kOk: {
      std::string s = "ok " + show(o.method) + " " + show(o.target) + " headers=" + std::to_string(o.n_headers);
      if (!o.body.empty()) s += " body=\"" + show(o.body.size() > 40 ? o.body.substr(0, 40) + "..." : o.body) + "\"";
      return s;
    }
  }
  return "?";
}

std::string show(const std::vector<Out> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) s += (i ? ", " : "") + show(v[i]);
  return s + "]";
}

// got matches want (got is always a single status).
bool match(const Out &want, const Out &got) {
  if (want.kind != got.kind) return false;
  if (want.kind == Out::kStatus) {
    for (int s : want.status)
      if (s == got.status[0]) return true;
    return false;
  }
  if (want.kind == Out::kMore) return true;
  if (want.method != got.method || want.target != got.target || want.body != got.body) return false;
  if (want.n_headers >= 0 && want.n_headers != got.n_headers) return false;
  for (auto &w : want.want_headers) {
    bool found = false;
    for (auto &g : got.headers) found |= g == w;
    if (!found) return false;
  }
  return true;
}

bool match(const std::vector<Out> &want, const std::vector<Out> &got) {
  if (want.size() != got.size()) return false;
  for (size_t i = 0; i < want.size(); i++)
    if (!match(want[i], got[i])) return false;
  return true;
}

bool same(const std::vector<Out> &a, const std::vector<Out> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++) {
    if (a[i].kind != b[i].kind) return false;
    if (a[i].kind == Out::kStatus && a[i].status != b[i].status) return false;
    if (a[i].kind == Out::kOk && !match(a[i], b[i])) return false;
  }
  return true;
}


}  // namespace

int main() {
  int passed = 0, failed = 0;
  for (const Row &row : rows()) {
    std::vector<Out> got = feed(row.req, {row.req.size()}, row.lim);
    std::string why;
    if (!match(row.want, got)) why = "one read: got " + show(got);
    if (why.empty() && row.split) {
      for (size_t k = 1; k < row.req.size() && why.empty(); k++) {
        std::vector<Out> g = feed(row.req, {k, row.req.size()}, row.lim);
        if (!same(g, got)) why = "split at byte " + std::to_string(k) + ": got " + show(g);
      }
      if (why.empty()) {
        std::vector<size_t> cuts;
        for (size_t k = 1; k <= row.req.size(); k++) cuts.push_back(k);
        std::vector<Out> g = feed(row.req, cuts, row.lim);
        if (!same(g, got)) why = "one byte at a time: got " + show(g);
      }
    } else if (why.empty()) {  // long rows: a few splits
      for (size_t k : {size_t(1), row.req.size() / 3, row.req.size() / 2, row.req.size() - 1}) {
        std::vector<Out> g = feed(row.req, {k, row.req.size()}, row.lim);
        if (!same(g, got) && why.empty()) why = "split at byte " + std::to_string(k) + ": got " + show(g);
      }
    }
    if (why.empty()) {
      passed++;
      continue;
    }
    failed++;
    std::string req = show(row.req);
    if (req.size() > 160) req = req.substr(0, 160) + "...";
    printf("FAIL %-34s [RFC %s]\n     request:  \"%s\"\n     expected: %s\n     %s\n", row.id, row.ref,
           req.c_str(), show(row.want).c_str(), why.c_str());
  }
  printf("conformance: %d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
