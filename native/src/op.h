// op.h — work handed to a loop from other threads (async completions, stream writes, WebSocket
// sends), in one
// malloc with its bytes, queued under the loop's mutex and applied on the loop's next step.
#pragma once
#include <cstdint>
#include <cstdlib>

struct br_body;
struct br_stream;

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

inline Op *op_new(Op::Kind kind, size_t bytes) {
  Op *op = static_cast<Op *>(malloc(sizeof(Op) + bytes));
  if (!op) abort();
  *op = Op{kind, 0, 0, 0, 0, 0, 0, nullptr, nullptr};
  return op;
}

void op_free(Op *op);  // drops its body/stream references too

}  // namespace br
