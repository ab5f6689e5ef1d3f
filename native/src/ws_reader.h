// ws_reader.h — turns the bytes a client sent into WebSocket messages and control frames.
//
// Zero-copy like the HTTP parser: payloads are unmasked in place and a message in one frame is
// handed out as a view into the receive buffer. A fragmented message is assembled in place
// too: each fragment's payload is moved down to follow the previous one, so the buffer holds
//   [assembled payload of the message in progress][unparsed frames]
// between calls, and the finished message is again one view. Frames are handled only when
// complete, and the only state kept between calls is (have, msg_op), so bytes split at any
// boundary give the same events as bytes that arrive at once.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "utf8.h"
#include "ws_frame.h"

namespace br::ws {

struct ReadState {
  uint64_t have = 0;   // payload bytes of the unfinished fragmented message, at the buffer front
  uint8_t msg_op = 0;  // its opcode (kText/kBinary); 0: no message in progress
};

enum EventKind : uint8_t { kEvMessage, kEvPing, kEvPong, kEvClose };

struct ReadResult {
  size_t consumed;  // front bytes no longer needed (views handed to the sink stay valid)
  size_t len;       // the buffer's new length: header bytes between fragments are squeezed out
  size_t need;      // bytes from the new front the next frame needs in all; 0: unknown yet
  uint16_t error;   // close code to fail the connection with (1002, 1007, 1009); 0: none
  bool closed;      // a valid close frame was read; nothing after it was looked at
};

// Reads every complete frame in buf[0, len) (buf[0, st.have) is the assembled payload).
// sink(EventKind, opcode, const uint8_t *data, size_t n, uint16_t close_code) gets, in order,
// each complete message (opcode kText or kBinary), ping and pong payloads, and the close frame
// (code kNoStatus when it carried none; data is its reason). Data frames are limited to
// max_message bytes per message (1009); text and close reasons must be UTF-8 (1007).
template <class Sink>
ReadResult read_frames(uint8_t *buf, size_t len, ReadState &st, uint64_t max_message, Sink &&sink) {
  ReadResult r{0, len, 0, 0, false};
  size_t base = 0;       // start of the current message; everything before is consumed
  size_t raw = st.have;  // the next unparsed frame
  for (;;) {
    FrameHead f;
    int h = parse_head(buf + raw, len - raw, &f);
    if (h == 0) break;
    if (h < 0) {
      r.error = uint16_t(-h);
      break;
    }
    bool control = f.opcode >= kClose;
    if (!control) {
      if (f.opcode == kCont ? st.msg_op == 0 : st.msg_op != 0) {  // continuation of nothing, or
        r.error = kProtocolError;                                  // a new message inside one
        break;
      }
      if (f.len > max_message - st.have) {  // refused before its payload is even read
        r.error = kTooBig;
        break;
      }
    }
    if (f.len > len - raw - size_t(h)) {
      r.need = size_t(st.have + size_t(h) + f.len);
      break;
    }
    uint8_t *pl = buf + raw + h;
    size_t n = size_t(f.len);
    unmask(pl, n, f.mask);
    raw += size_t(h) + n;
    if (control) {
      if (f.opcode == kClose) {
        uint16_t code = kNoStatus;
        if (n == 1) {
          r.error = kProtocolError;
          break;
        }
        if (n >= 2) {
          code = uint16_t(pl[0] << 8 | pl[1]);
          if (!valid_close_code(code)) {
            r.error = kProtocolError;
            break;
          }
          if (!valid_utf8(pl + 2, n - 2)) {
            r.error = kInvalidData;
            break;
          }
        }
        sink(kEvClose, kClose, n >= 2 ? pl + 2 : pl, n >= 2 ? n - 2 : 0, code);
        r.closed = true;
        r.consumed = base;
        return r;  // nothing after a close is read; its reason stays where it is
      }
      sink(f.opcode == kPing ? kEvPing : kEvPong, f.opcode, pl, n, 0);
      if (!st.msg_op) base = raw;
      continue;
    }
    if (f.fin && !st.msg_op) {  // the common case: a whole message in one frame
      if (f.opcode == kText && !valid_utf8(pl, n)) {
        r.error = kInvalidData;
        break;
      }
      sink(kEvMessage, f.opcode, pl, n, 0);
      base = raw;
      continue;
    }
    memmove(buf + base + st.have, pl, n);
    st.have += n;
    if (!st.msg_op) st.msg_op = f.opcode;
    if (f.fin) {
      if (st.msg_op == kText && !valid_utf8(buf + base, size_t(st.have))) {
        r.error = kInvalidData;
        break;
      }
      sink(kEvMessage, st.msg_op, buf + base, size_t(st.have), 0);
      st.have = 0;
      st.msg_op = 0;
      base = raw;
    }
  }
  // Squeeze out the fragment headers between the assembled payload and the unparsed bytes.
  size_t to = base + size_t(st.have);
  if (raw > to && !r.error) {
    memmove(buf + to, buf + raw, len - raw);
    r.len = len - (raw - to);
  }
  r.consumed = base;
  return r;
}

}  // namespace br::ws
