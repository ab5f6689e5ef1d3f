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
  std::string pattern;
  std::vector<std::string> segs;  // pattern segments after the leading '/'
  bool exact;
};

std::vector<std::string> split(std::string_view p) {  // p starts with '/'
  std::vector<std::string> out;
  size_t pos = 1;
  for (;;) {
    size_t s = p.find('/', pos);
    out.emplace_back(p.substr(pos, s == std::string_view::npos ? std::string_view::npos : s - pos));
    if (s == std::string_view::npos) return out;
    pos = s + 1;
  }
}

// Shape of a pattern with param names erased (two patterns that differ only in names collide).
std::string shape(const Route &r) {
  if (r.exact) return "E" + r.pattern;
  std::string s = "T";
  for (auto &g : r.segs) s += "/" + (g[0] == ':' ? std::string(":") : g);
  return s;
}

// -1 if the router must refuse the pattern, else 0 (taken is decided by the caller).
int model_valid(uint32_t method, std::string_view p, Route &r) {
  if (p.empty() || p[0] != '/' || method > Router::kAny) return -1;
  r.pattern = std::string(p);
  r.exact = p.find_first_of(":*") == std::string_view::npos;
  if (r.exact) return 0;
  r.segs = split(p);
  size_t params = 0;
  for (size_t i = 0; i < r.segs.size(); i++) {
    const std::string &g = r.segs[i];
    if (g == "*") {
      if (i + 1 != r.segs.size()) return -1;
    } else if (!g.empty() && g[0] == ':') {
      if (g.size() < 2 || ++params > BR_MAX_PARAMS) return -1;
    } else if (g.find_first_of(":*") != std::string::npos) {
      return -1;
    }
  }
  return 0;
}

// Does route r match path? Fills the expected params.
bool model_match(const Route &r, std::string_view path, std::vector<std::string_view> &params) {
  params.clear();
  if (r.exact) return path == r.pattern;
  if (path.empty() || path[0] != '/') return false;
  std::vector<std::string_view> segs;
  size_t pos = 1;
  for (;;) {
    size_t s = path.find('/', pos);
    segs.push_back(path.substr(pos, s == std::string_view::npos ? std::string_view::npos : s - pos));
    if (s == std::string_view::npos) break;
    pos = s + 1;
  }
  size_t k = r.segs.size();
  bool rest = r.segs.back() == "*";
  if (rest ? segs.size() < k : segs.size() != k) return false;
  for (size_t i = 0; i < (rest ? k - 1 : k); i++) {
    const std::string &g = r.segs[i];
    if (!g.empty() && g[0] == ':') {
      if (segs[i].empty()) return false;
      params.push_back(segs[i]);
    } else if (g != segs[i]) {
      return false;
    }
  }
  return true;
}

bool method_ok(uint32_t route_m, uint32_t m, const std::vector<Route> &routes, const Route &r) {
  (void)routes;
  (void)r;
  return route_m == m || route_m == Router::kAny || (m == BR_METHOD_HEAD && route_m == BR_METHOD_GET);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len) {
  if (len > 8192) return -1;
  std::string_view in(reinterpret_cast<const char *>(data), len);
  Router router;
  std::vector<Route> routes;
  uint32_t line_no = 0;
  size_t pos = 0;
  while (pos < in.size()) {
    size_t nl = in.find('\n', pos);
    std::string_view line = in.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? in.size() : nl + 1;
    line_no++;
    if (line.size() < 2) continue;
    uint32_t m = uint32_t((unsigned char)line[1] - '0');
    std::string arg(line.substr(2));  // own copy, exactly sized for ASan
    if (line[0] == 'A') {
      if (m > Router::kAny) continue;
      Route r{m, line_no, {}, {}, false};
      int want = model_valid(m, arg, r);
      if (want == 0)
        for (auto &o : routes)
          if (o.method == m && shape(o) == shape(r)) want = -2;
      int got = router.add(m, arg, line_no);
      if (got != want) fprintf(stderr, "add(%u, \"%s\") = %d, model %d\n", m, arg.c_str(), got, want);
      FZ_CHECK(got == want);
      if (got == 0) routes.push_back(std::move(r));
    } else if (line[0] == 'F') {
      if (m >= BR_METHOD_COUNT) continue;
      fz::Window path(arg.data(), arg.size());
      br_str params[BR_MAX_PARAMS];
      uint32_t np = 12345;
      uint32_t t = router.find(m, path.p, path.n, params, &np);
      std::vector<std::string_view> want;
      bool any = false;
      for (auto &r : routes)
        if (method_ok(r.method, m, routes, r) && model_match(r, std::string_view(path.p, path.n), want)) any = true;
      if (t == Router::kNone) {
        if (any) fprintf(stderr, "find(%u, \"%s\") = none, but a route matches\n", m, arg.c_str());
        FZ_CHECK(!any);
        continue;
      }
      const Route *hit = nullptr;
      for (auto &r : routes)
        if (r.target == t) hit = &r;
      FZ_CHECK(hit != nullptr);
      FZ_CHECK(method_ok(hit->method, m, routes, *hit));
      FZ_CHECK(model_match(*hit, std::string_view(path.p, path.n), want));
      FZ_CHECK(np == want.size() && np <= BR_MAX_PARAMS);
      for (uint32_t i = 0; i < np; i++) {
        FZ_CHECK(fz::inside(params[i].p, params[i].n, path.p, path.n));
        FZ_CHECK(std::string_view(params[i].p, params[i].n) == want[i]);
      }
    }
  }
  return 0;
}
FZ_HARNESS_END
