//go:build !bindrace_release && !bindrace_plain && !bindrace_instrumented

// The native core compiled from source by cgo (go get, go test): one translation unit that
// includes every native/src/*.cc. Tagged builds link a prebuilt libbindrace.a instead.
#include "../native/src/app.cc"
#include "../native/src/http_parser.cc"
#include "../native/src/loop.cc"
#include "../native/src/response.cc"
#include "../native/src/router.cc"
