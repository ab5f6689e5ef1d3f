//go:build !bindrace_release && !bindrace_plain && !bindrace_instrumented

// The native core compiled from source by cgo (go get, go test): one translation unit that
// includes every native/src/*.cc, in name order. TestNativeUnityListsEverySource
// (native_unity_test.go) fails, naming the file, when this list and native/src drift apart.
// Tagged builds link a prebuilt libbindrace.a instead.
#include "../native/src/app.cc"
#include "../native/src/batch.cc"
#include "../native/src/body.cc"
#include "../native/src/conn.cc"
#include "../native/src/http_chunked.cc"
#include "../native/src/http_conn.cc"
#include "../native/src/http_parser.cc"
#include "../native/src/inbox.cc"
#include "../native/src/listener.cc"
#include "../native/src/loop.cc"
#include "../native/src/response.cc"
#include "../native/src/router.cc"
#include "../native/src/slots.cc"
#include "../native/src/uring.cc"
#include "../native/src/uring_conn.cc"
#include "../native/src/uring_ring.cc"
#include "../native/src/ws_conn.cc"
