// router.h — method + path to a target index. Exact static paths are found by one hash probe;
// patterns with ":param" or a trailing "*" live in a segment tree searched only on a miss, so
// extra routes cost the hot static routes nothing.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bindrace.h"

namespace br {

class Router {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint32_t kAny = BR_METHOD_COUNT;  // method slot of "*" routes

  // Adds a route; method is a BR_METHOD_* or kAny. Returns 0, -1 (bad pattern) or -2 (taken).
  int add(uint32_t method, std::string_view pattern, uint32_t target);
  // Finds the target for method + path, filling params (views into path); kNone if none.
  uint32_t find(uint32_t method, const char *path, size_t n, br_str *params, uint32_t *n_params) const;

 private:
  struct Methods {
    uint32_t t[BR_METHOD_COUNT + 1];
    Methods() { for (auto &x : t) x = kNone; }
    uint32_t pick(uint32_t method) const {
      if (t[method] != kNone) return t[method];
      if (method == BR_METHOD_HEAD && t[BR_METHOD_GET] != kNone) return t[BR_METHOD_GET];
      return t[kAny];
    }
  };
  struct Exact {
    std::string path;
    uint64_t hash = 0;
    Methods m;
    bool used = false;
  };
  struct Node {
    std::vector<std::pair<std::string, std::unique_ptr<Node>>> kids;
    std::unique_ptr<Node> param;
    Methods here, rest;  // rest: the trailing "*" below this node
  };

  static uint64_t hash(const char *p, size_t n);
  Methods &exact_slot(std::string_view path);
  uint32_t walk(const Node *node, uint32_t method, const char *p, const char *end, br_str *params,
                uint32_t np, uint32_t *n_params) const;

  std::vector<Exact> exact_ = std::vector<Exact>(64);  // open addressing, power-of-two size
  size_t exact_used_ = 0;
  Node root_;
  bool has_tree_ = false;
};

}  // namespace br
