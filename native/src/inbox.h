// inbox.h — how other threads reach a loop. Every call of the C ABI that may come from any
// thread (br_loop_complete, br_stream_*, br_ws_send, br_ws_close, br_loop_stop) copies what it
// needs into an Op and posts it under the loop's mutex; an eventfd wakes the loop, which applies
// the ops in the order they were posted.
#pragma once

struct br_loop;

namespace br {

struct Op;

// From any thread: wakes the loop (its eventfd).
void wake(br_loop *l);

// From any thread: queues op for the loop and wakes it.
void post(br_loop *l, Op *op);

// On the loop's thread, when the eventfd is readable: applies every op posted so far.
// Returns 0, or -1 when the eventfd failed (errno set).
int drain_inbox(br_loop *l);

}  // namespace br
