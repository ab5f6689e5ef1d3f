// conn.h — one client connection: its receive buffer (request views point into it), the ordered
// response slots that keep pipelined answers in request order, and its out queue.
#pragma once
#include <cstdint>
#include <vector>

#include "buffer.h"
#include "http_parser.h"
#include "op.h"
#include "out_queue.h"
#include "ws_reader.h"

struct br_stream;

namespace br {

struct StaticResponse;

// Request facts the response needs.
enum : uint8_t { kReqClose = 1, kReqKeepAlive10 = 2, kReqHead = 4, kReqHttp10 = 8 };

// One answer owed, in request order. Only the front slot may write to the out queue.
struct Slot {
  enum State : uint8_t { kWaiting, kStatic, kStored, kStream } state;
  uint8_t req;                  // kReq* flags
  bool stream_closed;           // kStream: the writer closed it before the slot reached the front
  uint32_t seq;
  const StaticResponse *st;     // kStatic
  Op *op;                       // kStored / kStream: the response head (and body) to write
  br_stream *stream;            // kStream: the body's source (the slot holds a reference)
  std::vector<Op *> *later;     // kStream not yet at the front: data ops waiting their turn
};

struct Conn {
  int fd = -1;
  uint32_t idx = 0, gen = 0;
  uint64_t id = 0;  // gen << 32 | idx; what the embedder and async completions name

  Buffer in;
  size_t parsed = 0;     // in.data[parsed, len) is not yet consumed
  size_t need = 0;       // bytes from `parsed` the current request needs (body known)
  ChunkState chunk;
  bool in_chunked = false, continue_sent = false, partial = false;

  OutQueue out;
  std::vector<Slot> slots;  // ring buffer, capacity a power of two
  uint32_t slot_head = 0, slot_count = 0;
  uint32_t next_seq = 0;
  uint32_t in_batch = 0;    // requests of this connection in the batch the embedder holds

  // WebSocket, once upgraded: in.data[parsed, parsed + ws.have) is the message being assembled.
  uint8_t ws_kind = 0;       // 0 HTTP; else the route's kWsEvents or kWsEcho
  bool ws_sent_close = false;  // our close frame is queued: read only the answer to it
  bool ws_reported = false;    // the embedder got this connection's CLOSE event
  uint16_t ws_code = 0;        // the code of our close frame
  uint32_t ws_buffered = 0;    // the output backlog last reported to the embedder (BUFFERED)
  bool ws_report_due = false;  // a send flagged BR_WS_REPORT was applied since that report
  uint64_t ws_applied = 0;     // payload bytes of the embedder's messages applied since it
  uint32_t ws_target = 0;
  ws::ReadState ws;

  uint64_t deadline = 0;    // monotonic ms; 0 = none
  bool dead = false, close_after = false, read_closed = false;
  bool reading = true, want_write = false, dirty = false;

  Slot &slot_at(uint32_t i) { return slots[(slot_head + i) & (slots.size() - 1)]; }
  Slot &front() { return slots[slot_head]; }
  Slot &push_slot() {
    if (slot_count == slots.size()) {
      std::vector<Slot> bigger(slots.empty() ? 8 : slots.size() * 2);
      for (uint32_t i = 0; i < slot_count; i++) bigger[i] = slot_at(i);
      slots.swap(bigger);
      slot_head = 0;
    }
    Slot &s = slot_at(slot_count++);
    s = Slot{Slot::kWaiting, 0, false, next_seq++, nullptr, nullptr, nullptr, nullptr};
    return s;
  }
  void pop_slot() {
    slot_head = (slot_head + 1) & uint32_t(slots.size() - 1);
    slot_count--;
  }
  Slot *find_slot(uint32_t seq) {
    for (uint32_t i = 0; i < slot_count; i++)
      if (slot_at(i).seq == seq) return &slot_at(i);
    return nullptr;
  }
};

}  // namespace br
