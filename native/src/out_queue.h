// out_queue.h — a connection's unsent bytes, in order: small response bytes copied into one
// buffer (corked), shared bodies referenced zero-copy, and stream chunks owned until sent.
// flush() hands the whole queue to one sendmsg (writev semantics, no SIGPIPE).
#pragma once
#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <vector>

#include "body.h"
#include "buffer.h"
#include "op.h"
#include "sys.h"

namespace br {

struct Seg {
  enum Kind : uint8_t { kInline, kBody, kChunk } kind;
  size_t off;      // kInline: offset into the buffer; else: offset into the referenced bytes
  size_t len;      // bytes left to send
  void *ref;       // kBody: br_body*; kChunk: Op* (its data[head_len..] are the bytes)
};

class OutQueue {
 public:
  size_t bytes() const { return bytes_; }
  bool empty() const { return bytes_ == 0; }

  // Room for n inline bytes at the end of the queue; the caller fills all of them.
  char *inline_space(size_t n) {
    size_t at = buf_.len;
    buf_.reserve(n);
    buf_.len += n;
    bytes_ += n;
    if (head_ < segs_.size() && segs_.back().kind == Seg::kInline &&
        segs_.back().off + segs_.back().len == at)
      segs_.back().len += n;
    else
      segs_.push_back(Seg{Seg::kInline, at, n, nullptr});
    return buf_.data + at;
  }
  void append(const void *p, size_t n) {
    if (n) memcpy(inline_space(n), p, n);
  }
  // Gives back the last k bytes of the latest inline_space (reserved but not written).
  void trim(size_t k) {
    buf_.len -= k;
    bytes_ -= k;
    segs_.back().len -= k;
  }
  // Queues len bytes of a shared body from off; takes a reference.
  void append_body(br_body *b, size_t off, size_t len) {
    if (!len) return;
    segs_.push_back(Seg{Seg::kBody, off, len, body_ref(b)});
    bytes_ += len;
  }
  // Queues a stream chunk (op->data after its head bytes); the queue owns op from now on.
  void append_chunk(Op *op) {
    segs_.push_back(Seg{Seg::kChunk, op->head_len, op->body_len, op});
    bytes_ += op->body_len;
  }

  // Sends as much as the socket takes. Returns bytes sent (>= 0), or -1 on a dead socket.
  // done(seg) is called for every kChunk segment fully sent or dropped.
  template <class Done>
  ssize_t flush(int fd, Done &&done) {
    ssize_t total = 0;
    while (head_ < segs_.size()) {
      struct iovec iov[64];
      int k = 0;
      for (size_t i = head_; i < segs_.size() && k < 64; i++, k++) iov[k] = vec(segs_[i]);
      struct msghdr msg = {};
      msg.msg_iov = iov;
      msg.msg_iovlen = k;
      ssize_t w = sys::sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN) break;
        return -1;
      }
      total += w;
      consume(size_t(w), done);
      if (k < 64 && head_ < segs_.size()) break;  // the socket buffer is full
    }
    settle();
    return total;
  }

  // The io_uring loop's send (uring.cc), in two halves: gather() fills at most max iovecs from
  // the head of the queue (their bytes in *n) for one sendmsg submitted elsewhere; sent() takes
  // that send's result (w bytes) as flush() takes sendmsg's. Nothing may touch the queue between
  // gather() and the submit; the ring's sends complete within it (MSG_DONTWAIT), so by sent()
  // the kernel holds no pointer into the queue, and bytes queued meanwhile follow the sent ones.
  int gather(struct iovec *iov, int max, size_t *n) const {
    int k = 0;
    *n = 0;
    for (size_t i = head_; i < segs_.size() && k < max; i++, k++) {
      iov[k] = vec(segs_[i]);
      *n += iov[k].iov_len;
    }
    return k;
  }
  // True when one gather() of at most max iovecs takes the whole queue and none of it is a
  // stream chunk: once such a send is done in full, nothing follows from it.
  bool whole_and_plain(int max) const {
    if (segs_.size() - head_ > size_t(max)) return false;
    for (size_t i = head_; i < segs_.size(); i++)
      if (segs_[i].kind == Seg::kChunk) return false;
    return true;
  }
  template <class Done>
  void sent(size_t w, Done &&done) {
    consume(w, done);
    settle();
  }

  // Drops everything unsent (connection gone).
  template <class Done>
  void drop(Done &&done) {
    consume(bytes_, done);
    segs_.clear();
    head_ = 0;
    buf_.len = 0;
  }

  void release() { buf_.release(); }

 private:
  struct iovec vec(const Seg &s) const {
    const char *base = s.kind == Seg::kInline ? buf_.data
                       : s.kind == Seg::kBody ? static_cast<br_body *>(s.ref)->data
                                              : static_cast<Op *>(s.ref)->data;
    return iovec{const_cast<char *>(base + s.off), s.len};
  }
  template <class Done>
  void consume(size_t n, Done &done) {
    bytes_ -= n;
    while (head_ < segs_.size()) {
      Seg &s = segs_[head_];
      size_t take = n < s.len ? n : s.len;
      s.off += take;
      s.len -= take;
      n -= take;
      if (s.len) break;
      if (s.kind == Seg::kBody) body_unref(static_cast<br_body *>(s.ref));
      if (s.kind == Seg::kChunk) done(static_cast<Op *>(s.ref));
      head_++;
    }
  }
  // A long-lived stream never empties the queue: drop sent segments and sent inline bytes.
  // After a send: an emptied queue lets its buffer go back to its usual size; otherwise the
  // unsent rest moves to the front.
  void settle() {
    if (head_ == segs_.size()) {
      segs_.clear();
      head_ = 0;
      buf_.len = 0;
      buf_.shrink(size_t(256) << 10);
    } else {
      compact();
    }
  }
  void compact() {
    if (head_ < 64 && buf_.len < (size_t(64) << 10)) return;
    segs_.erase(segs_.begin(), segs_.begin() + long(head_));
    head_ = 0;
    size_t first = buf_.len;
    for (auto &s : segs_)
      if (s.kind == Seg::kInline && s.off < first) first = s.off;
    if (first == 0) return;
    memmove(buf_.data, buf_.data + first, buf_.len - first);
    buf_.len -= first;
    for (auto &s : segs_)
      if (s.kind == Seg::kInline) s.off -= first;
  }

  Buffer buf_;
  std::vector<Seg> segs_;
  size_t head_ = 0, bytes_ = 0;
};

}  // namespace br
