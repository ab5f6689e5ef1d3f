// body.cc — the shared-body half of the C ABI (body.h holds the type and its reference count).
#include <cstdlib>
#include <cstring>
#include <new>

#include "bindrace.h"
#include "body.h"

extern "C" {

br_body *br_body_new(const void *data, size_t len) {
  auto *b = static_cast<br_body *>(malloc(sizeof(br_body) + len));
  if (!b) abort();  // out of memory is fatal, as everywhere in the core
  new (&b->refs) std::atomic<long>(1);
  b->len = len;
  if (data && len) memcpy(b->data, data, len);
  return b;
}

void *br_body_data(br_body *b) { return b->data; }

void br_body_release(br_body *b) { br::body_unref(b); }

}  // extern "C"
