// app.h — what all loops share: limits, the router and its targets, the connection count.
#pragma once
#include <atomic>
#include <mutex>
#include <vector>

#include "bindrace.h"
#include "http_parser.h"
#include "response.h"
#include "router.h"

namespace br {

// What a route leads to: a static response answered in C, or the embedder's route id; a
// WebSocket route also carries its limits.
struct Target {
  StaticResponse *st;
  uint32_t route;
  uint8_t ws;          // 0 HTTP; kWsEvents: upgrades, events to the embedder; kWsEcho: echoed in C
  uint32_t ws_idle_ms;
  uint64_t ws_max;
};
enum : uint8_t { kWsEvents = 1, kWsEcho = 2 };

}  // namespace br

struct br_app {
  br_config cfg;
  br::Limits lim;
  br::Router router;
  std::vector<br::Target> targets;
  std::atomic<uint32_t> conns{0};
  // The port this app's SO_REUSEPORT group holds (0: none yet). Loops that join it skip the
  // probe that keeps the first one out of a group another process already holds.
  std::atomic<int> group_port{0};
  // Refusals, answered with Connection: close.
  br::StaticResponse *e426;  // wrong WebSocket version: names the one we speak
  br::StaticResponse *e400, *e404, *e408, *e413, *e414, *e431, *e501, *e503, *e505;
  // 405s by the set of methods the path has routes for (bit m = BR_METHOD m), built on first use.
  std::atomic<br::StaticResponse *> e405[1u << BR_METHOD_COUNT] = {};
  std::mutex e405_mu;

  br::StaticResponse *error(int status) const {
    switch (status) {
      case 404: return e404;
      case 408: return e408;
      case 426: return e426;
      case 413: return e413;
      case 414: return e414;
      case 431: return e431;
      case 501: return e501;
      case 503: return e503;
      case 505: return e505;
    }
    return e400;
  }
};

namespace br {
// The answer to a request no route takes: 405 with Allow when the path has routes for other
// methods (RFC 9110 15.5.6), else 404. Cold path: one lookup per method.
const StaticResponse *no_route(br_app *app, const char *path, size_t n);
}  // namespace br
