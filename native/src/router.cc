// router.cc — see router.h.
#include "router.h"

#include <cstring>

namespace br {

uint64_t Router::hash(const char *p, size_t n) {
  // Length plus the first and last 8 bytes: O(1), and paths differ at their ends in practice.
  uint64_t a = 0, b = 0;
  if (n >= 8) {  // fixed-size loads compile to plain moves
    memcpy(&a, p, 8);
    memcpy(&b, p + n - 8, 8);
  } else {
    for (size_t i = 0; i < n; i++) a |= uint64_t(uint8_t(p[i])) << (8 * i);
  }
  uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull) ^ n) * 0xff51afd7ed558ccdull;
  return h ^ (h >> 29);
}

Router::Methods &Router::exact_slot(std::string_view path) {
  if ((exact_used_ + 1) * 2 > exact_.size()) {
    std::vector<Exact> old(exact_.size() * 2);
    old.swap(exact_);
    exact_used_ = 0;
    for (auto &e : old)
      if (e.used) exact_slot(e.path) = e.m;
  }
  uint64_t h = hash(path.data(), path.size());
  size_t mask = exact_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    Exact &e = exact_[i];
    if (!e.used) {
      e.used = true;
      e.path = std::string(path);
      e.hash = h;
      exact_used_++;
      return e.m;
    }
    if (e.hash == h && e.path == path) return e.m;
  }
}

int Router::add(uint32_t method, std::string_view pattern, uint32_t target) {
  if (pattern.empty() || pattern[0] != '/' || method > kAny) return -1;
  if (pattern.find_first_of(":*") == std::string_view::npos) {
    Methods &m = exact_slot(pattern);
    if (m.t[method] != kNone) return -2;
    m.t[method] = target;
    return 0;
  }
  Node *node = &root_;
  size_t pos = 1, params = 0;
  for (;;) {
    size_t slash = pattern.find('/', pos);
    std::string_view seg = pattern.substr(pos, slash == std::string_view::npos ? slash : slash - pos);
    if (seg == "*") {
      if (slash != std::string_view::npos) return -1;  // "*" only as the last segment
      if (node->rest.t[method] != kNone) return -2;
      node->rest.t[method] = target;
      break;
    }
    if (!seg.empty() && seg[0] == ':') {
      if (seg.size() < 2 || ++params > BR_MAX_PARAMS) return -1;
      if (!node->param) node->param = std::make_unique<Node>();
      node = node->param.get();
    } else {
      if (seg.find_first_of(":*") != std::string_view::npos) return -1;
      Node *next = nullptr;
      for (auto &k : node->kids)
        if (k.first == seg) next = k.second.get();
      if (!next) {
        node->kids.emplace_back(std::string(seg), std::make_unique<Node>());
        next = node->kids.back().second.get();
      }
      node = next;
    }
    if (slash == std::string_view::npos) {
      if (node->here.t[method] != kNone) return -2;
      node->here.t[method] = target;
      break;
    }
    pos = slash + 1;
  }
  has_tree_ = true;
  return 0;
}

uint32_t Router::walk(const Node *node, uint32_t method, const char *p, const char *end,
                      br_str *params, uint32_t np, uint32_t *n_params) const {
  if (p == end) {
    uint32_t t = node->here.pick(method);
    if (t != kNone) *n_params = np;
    return t;
  }
  // p is at a '/': the next segment is (p, seg_end).
  const char *seg = p + 1;
  const char *seg_end = static_cast<const char *>(memchr(seg, '/', size_t(end - seg)));
  if (!seg_end) seg_end = end;
  size_t n = size_t(seg_end - seg);
  for (auto &k : node->kids) {
    if (k.first.size() == n && !memcmp(k.first.data(), seg, n)) {
      uint32_t t = walk(k.second.get(), method, seg_end, end, params, np, n_params);
      if (t != kNone) return t;
    }
  }
  if (node->param && n > 0) {
    params[np] = br_str{seg, n};
    uint32_t t = walk(node->param.get(), method, seg_end, end, params, np + 1, n_params);
    if (t != kNone) return t;
  }
  uint32_t t = node->rest.pick(method);
  if (t != kNone) *n_params = np;
  return t;
}

uint32_t Router::find(uint32_t method, const char *path, size_t n, br_str *params,
                      uint32_t *n_params) const {
  *n_params = 0;
  uint64_t h = hash(path, n);
  size_t mask = exact_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Exact &e = exact_[i];
    if (!e.used) break;
    if (e.hash == h && e.path.size() == n && !memcmp(e.path.data(), path, n)) {
      uint32_t t = e.m.pick(method);
      if (t != kNone) return t;
      break;
    }
  }
  if (!has_tree_ || n == 0 || path[0] != '/') return kNone;
  return walk(&root_, method, path, path + n, params, 0, n_params);
}

}  // namespace br
