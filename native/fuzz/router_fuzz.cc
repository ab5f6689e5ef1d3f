// router_fuzz.cc — libFuzzer target for br::Router (native/src/router.h).
//
// Input: lines. "A<m><pattern>" adds a route, "F<m><path>" looks one up; <m> is a method digit
// ('0'+BR_METHOD_*, and the next digit, ':', is kAny / "*" for A). Route targets are the line
// numbers. A plain reference model of the documented semantics checks:
//   * add: the verdict is 0, -1 (bad pattern) or -2 (taken) exactly as the model predicts
//     (static and ":param" segments, "*" only as a whole last segment, at most BR_MAX_PARAMS
//     params, ":" then at least one character; param names do not distinguish routes);
//   * find: a returned target is a route that matches the path under the method fallback
//     (exact method, then GET for HEAD, then any), its params are the path's segments at the
//     pattern's ":" positions (views inside the path); kNone only when no route matches.
#include <string>
#include <string_view>
#include <vector>

#include "../src/router.h"
#include "fuzz_common.h"

FZ_HARNESS_BEGIN

namespace {

using br::Router;

struct Route {
  uint32_t method, target;
  std::string_view pattern;             // inside the input, which outlives the routes
  std::vector<std::string_view> segs;   // pattern segments after the leading '/'
  bool exact;
};

// Segments of p after its leading '/', into out.
void split(std::string_view p, std::vector<std::string_view> &out) {
  out.clear();
  size_t pos = 1;
  for (;;) {
    size_t s = p.find('/', pos);
    out.push_back(p.substr(pos, s == std::string_view::npos ? std::string_view::npos : s - pos));
    if (s == std::string_view::npos) return;
    pos = s + 1;
  }
}

bool is_param(std::string_view seg) { return !seg.empty() && seg[0] == ':'; }

// Param names do not distinguish routes: /a/:x and /a/:y are the same route.
bool same_shape(const Route &a, const Route &b) {
  if (a.exact || b.exact) return a.exact == b.exact && a.pattern == b.pattern;
  if (a.segs.size() != b.segs.size()) return false;
  for (size_t i = 0; i < a.segs.size(); i++)
    if (is_param(a.segs[i]) ? !is_param(b.segs[i]) : a.segs[i] != b.segs[i]) return false;
  return true;
}

// -1 if the router must refuse the pattern, else 0 (taken is decided by the caller).
int model_valid(uint32_t method, std::string_view p, Route &r) {
  if (p.empty() || p[0] != '/' || method > Router::kAny) return -1;
  r.pattern = p;
  r.exact = p.find_first_of(":*") == std::string_view::npos;
  if (r.exact) return 0;
  split(p, r.segs);
  size_t params = 0;
  for (size_t i = 0; i < r.segs.size(); i++) {
    std::string_view g = r.segs[i];
    if (g == "*") {
      if (i + 1 != r.segs.size()) return -1;
    } else if (is_param(g)) {
      if (g.size() < 2 || ++params > BR_MAX_PARAMS) return -1;
    } else if (g.find_first_of(":*") != std::string_view::npos) {
      return -1;
    }
  }
  return 0;
}

// Does route r match the path (split into segs)? Fills the expected params.
bool model_match(const Route &r, std::string_view path, const std::vector<std::string_view> &segs,
                 std::vector<std::string_view> &params) {
  params.clear();
  if (r.exact) return path == r.pattern;
  if (path.empty() || path[0] != '/') return false;
  size_t k = r.segs.size();
  bool rest = r.segs.back() == "*";
  if (rest ? segs.size() < k : segs.size() != k) return false;
  for (size_t i = 0; i < (rest ? k - 1 : k); i++) {
    std::string_view g = r.segs[i];
    if (is_param(g)) {
      if (segs[i].empty()) return false;
      params.push_back(segs[i]);
    } else if (g != segs[i]) {
      return false;
    }
  }
  return true;
}

// The method fallback: exact method, then GET for HEAD, then any.
bool method_ok(uint32_t route_m, uint32_t m) {
  return route_m == m || route_m == Router::kAny || (m == BR_METHOD_HEAD && route_m == BR_METHOD_GET);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  if (len > 8192) return -1;
  // One copy of the input; each call sees the bytes after its argument poisoned, so ASan
  // reports a read past the argument's end (one block, not one malloc per line: ASan's malloc
  // costs more than the router).
  fz::Window input(data, len);
  Router router;
  std::vector<Route> routes;
  std::vector<std::string_view> segs, want;  // a lookup's path segments and expected params
  uint32_t line_no = 0;
  size_t pos = 0;
  while (pos < len) {
    input.narrow(len);
    std::string_view in(input.p, len);
    size_t nl = in.find('\n', pos);
    size_t end = nl == std::string_view::npos ? len : nl;
    std::string_view line = in.substr(pos, end - pos);
    pos = end + 1;
    line_no++;
    if (line.size() < 2) continue;
    uint32_t m = uint32_t((unsigned char)line[1] - '0');
    std::string_view a = line.substr(2);
    input.narrow(end);
    if (line[0] == 'A') {
      if (m > Router::kAny) continue;
      Route r{m, line_no, {}, {}, false};
      int expect = model_valid(m, a, r);
      if (expect == 0)
        for (auto &o : routes)
          if (o.method == m && same_shape(o, r)) expect = -2;
      int got = router.add(m, a, line_no);
      if (got != expect) fprintf(stderr, "add(%u, \"%.*s\") = %d, model %d\n", m, int(a.size()), a.data(), got, expect);
      FZ_CHECK(got == expect);
      if (got == 0) routes.push_back(std::move(r));
    } else if (line[0] == 'F') {
      if (m >= BR_METHOD_COUNT) continue;
      br_str params[BR_MAX_PARAMS];
      uint32_t np = 12345;
      uint32_t t = router.find(m, a.data(), a.size(), params, &np);
      if (!a.empty() && a[0] == '/') split(a, segs);
      bool any = false;
      for (auto &r : routes)
        if (method_ok(r.method, m) && model_match(r, a, segs, want)) any = true;
      if (t == Router::kNone) {
        if (any) fprintf(stderr, "find(%u, \"%.*s\") = none, but a route matches\n", m, int(a.size()), a.data());
        FZ_CHECK(!any);
        continue;
      }
      const Route *hit = nullptr;
      for (auto &r : routes)
        if (r.target == t) hit = &r;
      FZ_CHECK(hit != nullptr);
      FZ_CHECK(method_ok(hit->method, m));
      FZ_CHECK(model_match(*hit, a, segs, want));
      FZ_CHECK(np == want.size() && np <= BR_MAX_PARAMS);
      for (uint32_t i = 0; i < np; i++) {
        FZ_CHECK(fz::inside(params[i].p, params[i].n, a.data(), a.size()));
        FZ_CHECK(std::string_view(params[i].p, params[i].n) == want[i]);
      }
    }
  }
  return 0;
}
FZ_HARNESS_END
