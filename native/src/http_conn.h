// http_conn.h — HTTP/1.1 on a connection: every complete request in the receive buffer is
// parsed, routed and then answered in C (static routes, refusals), handed to the embedder in
// the batch, or upgraded to WebSocket.
#pragma once
#include <cstdint>

#include "http_parser.h"
#include "slots.h"

struct br_loop;

namespace br {

struct Conn;

constexpr uint32_t kMaxSlots = 128;  // pipelined answers owed before reading pauses

// What a connection keeps while it speaks HTTP.
struct HttpState {
  SlotRing slots;              // the answers owed, in request order
  ChunkState chunk{};          // the chunked body being decoded
  bool in_chunked = false;
  bool continue_sent = false;  // 100 Continue went out for the request being read
  bool partial = false;        // a request has started arriving: the header timeout runs
};

// Parses and answers every complete request buffered on c, in order. Once c upgrades, even in
// the middle of the buffer, the bytes after the upgrade request go to ws_process.
void process(br_loop *l, Conn *c);

// Refuses with status (400, 408, 413, ...) behind what is owed, then closes.
void fail(br_loop *l, Conn *c, int status);

}  // namespace br
