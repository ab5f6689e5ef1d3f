// app.cc — the app half of the C ABI: limits, routes and their targets, refusal responses, and
// the profile hook of instrumented builds.
#include <cstring>
#include <string>
#include <string_view>

#include "app.h"

// Present only in instrumented builds (clang -fprofile-instr-generate). The name is the profile
// runtime's, reserved identifier or not.
extern "C" int __llvm_profile_write_file(void) __attribute__((weak));  // NOLINT(bugprone-reserved-identifier)

namespace br {
namespace {

const char *const kMethodNames[BR_METHOD_COUNT] = {"", "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH",
                                                   "OPTIONS", "CONNECT", "TRACE"};

uint32_t method_of(const char *m) {
  if (!strcmp(m, "*")) return Router::kAny;
  for (uint32_t i = 1; i < BR_METHOD_COUNT; i++)
    if (!strcmp(m, kMethodNames[i])) return i;
  return UINT32_MAX;
}

int add_target(br_app *app, const char *method, const char *pattern, Target t) {
  uint32_t m = method_of(method);
  if (m == UINT32_MAX) return -1;
  int rc = app->router.add(m, std::string_view(pattern), uint32_t(app->targets.size()));
  if (rc == 0) app->targets.push_back(t);
  return rc;
}

StaticResponse *error_response(uint32_t status, const char *text) {
  return static_new(status, "text/plain", text, strlen(text), nullptr);
}

}  // namespace

const StaticResponse *no_route(br_app *app, const char *path, size_t n) {
  uint32_t allowed = 0;
  br_str params[BR_MAX_PARAMS];
  uint32_t np;
  for (uint32_t m = 1; m < BR_METHOD_COUNT; m++)
    if (app->router.find(m, path, n, params, &np) != Router::kNone) allowed |= 1u << m;
  if (!allowed) return app->e404;
  StaticResponse *r = app->e405[allowed].load(std::memory_order_acquire);
  if (r) return r;
  std::lock_guard<std::mutex> g(app->e405_mu);  // once per method set, by whichever loop is first
  r = app->e405[allowed].load(std::memory_order_relaxed);
  if (!r) {
    std::string type = "text/plain\r\nAllow: ";
    for (uint32_t m = 1; m < BR_METHOD_COUNT; m++)
      if (allowed & (1u << m)) type.append(type.back() == ' ' ? "" : ", ").append(kMethodNames[m]);
    r = static_new(405, type.c_str(), "Method Not Allowed", 18, nullptr);
    app->e405[allowed].store(r, std::memory_order_release);
  }
  return r;
}

}  // namespace br

extern "C" {

br_app *br_app_new(const br_config *cfg) {
  auto *app = new br_app();
  br_config c = cfg ? *cfg : br_config{};
  if (!c.max_uri) c.max_uri = br::kDefaultLimits.max_uri;
  if (!c.max_header_bytes) c.max_header_bytes = br::kDefaultLimits.max_header_bytes;
  if (!c.max_headers) c.max_headers = br::kDefaultLimits.max_headers;
  if (!c.header_timeout_ms) c.header_timeout_ms = 10000;
  if (!c.idle_timeout_ms) c.idle_timeout_ms = 60000;
  if (!c.max_conns) c.max_conns = 10000;
  if (!c.send_buffer) c.send_buffer = 256 * 1024;
  if (!c.max_body) c.max_body = br::kDefaultLimits.max_body;
  app->cfg = c;
  app->lim = br::Limits{c.max_uri, c.max_header_bytes, c.max_headers, c.max_body};
  app->e400 = br::error_response(400, "Bad Request");
  app->e404 = br::error_response(404, "Not Found");
  app->e408 = br::error_response(408, "Request Timeout");
  app->e413 = br::error_response(413, "Content Too Large");
  app->e414 = br::error_response(414, "URI Too Long");
  app->e431 = br::error_response(431, "Request Header Fields Too Large");
  app->e501 = br::error_response(501, "Not Implemented");
  app->e503 = br::error_response(503, "Service Unavailable");
  app->e505 = br::error_response(505, "HTTP Version Not Supported");
  app->e426 = br::static_new(426, "text/plain\r\nSec-WebSocket-Version: 13", "Upgrade Required", 16, nullptr);
  // The over-limit refusal is sent raw at accept time: make it say Connection: close.
  br::static_free(app->e503);
  app->e503 = br::static_new(503, "text/plain\r\nConnection: close", "Service Unavailable", 19, nullptr);
  return app;
}

void br_app_free(br_app *app) {
  for (auto &t : app->targets)
    if (t.st) br::static_free(t.st);
  for (auto *e : {app->e426, app->e400, app->e404, app->e408, app->e413, app->e414, app->e431, app->e501,
                  app->e503, app->e505})
    br::static_free(e);
  for (auto &e : app->e405)
    if (auto *r = e.load()) br::static_free(r);
  delete app;
  br_profile_flush();
}

int br_app_route(br_app *app, const char *method, const char *pattern, uint32_t route_id) {
  return br::add_target(app, method, pattern, br::Target{nullptr, route_id, 0, 0, 0});
}

int br_app_static(br_app *app, const char *method, const char *pattern, uint32_t status,
                  const char *content_type, const void *body, size_t len) {
  auto *st = br::static_new(status, content_type, body, len, nullptr);
  int rc = br::add_target(app, method, pattern, br::Target{st, 0, 0, 0, 0});
  if (rc) br::static_free(st);
  return rc;
}

int br_app_static_body(br_app *app, const char *method, const char *pattern, uint32_t status,
                       const char *content_type, br_body *body) {
  auto *st = br::static_new(status, content_type, nullptr, 0, body);
  int rc = br::add_target(app, method, pattern, br::Target{st, 0, 0, 0, 0});
  if (rc) br::static_free(st);
  return rc;
}

int br_app_ws(br_app *app, const char *pattern, uint32_t route_id, const br_ws_config *cfg) {
  br_ws_config c = cfg ? *cfg : br_ws_config{};
  br::Target t{nullptr, route_id, (c.flags & BR_WS_ECHO) ? br::kWsEcho : br::kWsEvents,
               c.idle_timeout_ms ? c.idle_timeout_ms : 120000,
               c.max_message ? c.max_message : uint64_t(16) << 20};
  return br::add_target(app, "GET", pattern, t);
}

void br_profile_flush(void) {
  if (__llvm_profile_write_file) __llvm_profile_write_file();
}

}  // extern "C"
