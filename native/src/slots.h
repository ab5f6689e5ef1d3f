// slots.h — the answers a connection owes, in request order. Pipelined requests may be answered
// in any order (the embedder detaches some and finishes them later from another thread), but
// only the front slot writes to the out queue: the others keep their answer until their turn.
// A streamed body holds the front until its stream closes.
#pragma once
#include <cstdint>
#include <vector>

#include "op.h"

struct br_loop;

namespace br {

struct Conn;
struct StaticResponse;

// One answer owed.
struct Slot {
  enum State : uint8_t { kWaiting, kStatic, kStored, kStream } state;
  uint8_t req;                  // kReq* flags (response.h)
  bool stream_closed;           // kStream: the writer closed it before the slot reached the front
  uint32_t seq;
  const StaticResponse *st;     // kStatic
  Op *op;                       // kStored / kStream: the response head (and body) to write
  br_stream *stream;            // kStream: the body's source (the slot holds a reference)
  std::vector<Op *> *later;     // kStream not yet at the front: data ops waiting their turn
};

// A ring of slots whose capacity is a power of two; a pooled connection keeps its storage.
struct SlotRing {
  std::vector<Slot> ring;
  uint32_t head = 0, count = 0;
  uint32_t next_seq = 0;  // what the next request's slot is called (br_request.seq)

  Slot &at(uint32_t i) { return ring[(head + i) & (ring.size() - 1)]; }
  Slot &front() { return ring[head]; }
  Slot &push() {
    if (count == ring.size()) {
      std::vector<Slot> bigger(ring.empty() ? 8 : ring.size() * 2);
      for (uint32_t i = 0; i < count; i++) bigger[i] = at(i);
      ring.swap(bigger);
      head = 0;
    }
    Slot &s = at(count++);
    s = Slot{Slot::kWaiting, 0, false, next_seq++, nullptr, nullptr, nullptr, nullptr};
    return s;
  }
  void pop() {
    head = (head + 1) & uint32_t(ring.size() - 1);
    count--;
  }
  Slot *find(uint32_t seq) {
    for (uint32_t i = 0; i < count; i++)
      if (at(i).seq == seq) return &at(i);
    return nullptr;
  }
};

// An answer for a slot: from the batch's arenas, or from an op that holds head and body.
struct Answer {
  uint32_t status, flags;      // BR_RES_* flags
  const char *head;            // the embedder's header lines
  size_t head_len;
  const char *body;            // an in-memory body, or
  size_t body_len;
  br_body *shared;             // a shared body (BR_RES_BODY), or
  br_stream *stream;           // a streamed body (BR_RES_STREAM)
};

// Answers a request with a fixed response: at once if nothing is owed before it, else in turn.
void answer_static(br_loop *l, Conn *c, const StaticResponse *st, uint8_t req);
// The embedder's answer for (c, seq). own, if given, is an op holding a's bytes; respond takes it.
void respond(br_loop *l, Conn *c, uint32_t seq, const Answer &a, Op *own);
// A posted stream op (kData or kClose); takes op.
void stream_op(br_loop *l, Op *op);
// A stream chunk left the socket (or was dropped): frees it and releases its backpressure credit.
void chunk_done(br_loop *l, Op *op);
// After a closing answer nothing behind it is sent.
void discard_rest(br_loop *l, Conn *c);
// Drops every answer owed (the connection is gone); streams learn they are dead.
void release_slots(br_loop *l, Conn *c);

}  // namespace br
