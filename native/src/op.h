// op.h — work handed to a loop from other threads (async completions, stream writes, WebSocket
// sends), in one malloc with its bytes, queued in the loop's inbox and applied on its next step.
#pragma once
#include <cstdint>
#include <cstdlib>

#include "body.h"
#include "stream.h"

namespace br {

struct Op {
  enum Kind : uint8_t { kComplete, kData, kClose, kWsSend, kWsClose } kind;
  uint32_t status, flags, seq;  // kWsSend: status = opcode; kWsClose: status = close code
  uint64_t conn;
  size_t head_len, body_len;  // head bytes then body bytes in data
  br_body *body;              // shared body (a reference is held)
  br_stream *stream;          // stream this op belongs to (a reference is held)
  char data[];
};

// Out of memory is fatal here as in every allocation of the core (no exceptions).
inline Op *op_new(Op::Kind kind, size_t bytes) {
  Op *op = static_cast<Op *>(malloc(sizeof(Op) + bytes));
  if (!op) abort();
  *op = Op{kind, 0, 0, 0, 0, 0, 0, nullptr, nullptr};
  return op;
}

// Frees op and drops the references it holds.
inline void op_free(Op *op) {
  if (op->body) body_unref(op->body);
  if (op->stream) stream_unref(op->stream);
  free(op);
}

}  // namespace br
