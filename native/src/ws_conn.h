// ws_conn.h — WebSocket on a connection (RFC 6455), from the upgrade on: frames to events for
// the embedder (or echoes in C), its sends, pings, the close handshake, and backlog reports.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bindrace.h"
#include "http_parser.h"
#include "ws_reader.h"

struct br_loop;

namespace br {

struct Conn;

// What a connection keeps once it speaks WebSocket.
struct WsState {
  uint8_t kind = 0;          // 0 still HTTP; else the route's kWsEvents or kWsEcho
  bool sent_close = false;   // our close frame is queued: read only the answer to it
  bool reported = false;     // the embedder got this connection's CLOSE event
  bool report_due = false;   // a send flagged BR_WS_REPORT was applied since the last report
  uint16_t code = 0;         // the code of our close frame
  uint32_t buffered = 0;     // the output backlog last reported to the embedder (BUFFERED)
  uint32_t target = 0;       // the route's target index
  uint64_t applied = 0;      // payload bytes of the embedder's messages applied since that report
  ws::ReadState read;        // in.data[parsed, parsed + read.have) is the message being assembled
};

// A request on a WebSocket route: the 101 and the switch, or a refusal.
void ws_upgrade(br_loop *l, Conn *c, const Head &h, br_str body, uint32_t target, uint8_t req);
// Reads every complete frame buffered on an upgraded connection.
void ws_process(br_loop *l, Conn *c);
// Fails the connection (RFC 6455 7.1.7): close frame with code, TCP close once it is sent.
void ws_fail(br_loop *l, Conn *c, uint16_t code);
// An embedder's send (batch record or inbox op) for connection id.
void ws_apply_send(br_loop *l, uint64_t id, uint32_t op, uint32_t code, const void *p, size_t n);
// After a flush of an events connection whose CLOSE the embedder has not had yet: tells it the
// socket's backlog when that changed or a send asked for it (the check is the caller's, since
// it runs on every flush of every connection).
void ws_report_backlog(br_loop *l, Conn *c);
// Shutdown: starts the close handshake with 1001.
void ws_going_away(br_loop *l, Conn *c);
// The connection is closing: the embedder gets the CLOSE its OPEN promised (1006 if none yet).
void ws_closed(br_loop *l, Conn *c);

}  // namespace br
