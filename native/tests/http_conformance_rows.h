// http_conformance_rows.h — the rows of http_conformance_test.cc: request bytes, the outcome
// RFC 9112 (or the design's "Bad input") asks for, and the section it comes from. One
// function per part of the RFC keeps each list short enough to read.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "../src/http_parser.h"

using namespace std::string_literals;

namespace {

struct Out {
  enum Kind { kOk, kStatus, kMore } kind;
  std::vector<int> status;  // kStatus: any of these
  std::string method, target, body;
  int n_headers = -1;       // kOk: -1 = do not check
  std::vector<std::pair<std::string, std::string>> want_headers;  // kOk: name -> value present
  std::vector<std::pair<std::string, std::string>> headers;       // what was parsed
};

Out OK(std::string m, std::string t, int nh, std::string body = "",
       std::vector<std::pair<std::string, std::string>> want = {}) {
  Out o{Out::kOk, {}, std::move(m), std::move(t), std::move(body), nh, std::move(want), {}};
  return o;
}
Out ST(int s) { return Out{Out::kStatus, {s}, "", "", "", -1, {}, {}}; }
Out ANY(std::vector<int> s) { return Out{Out::kStatus, std::move(s), "", "", "", -1, {}, {}}; }
const Out MORE{Out::kMore, {}, "", "", "", -1, {}, {}};

constexpr br::Limits kDef{8192, 16384, 64, 1048576};   // the C ABI defaults (bindrace.h)
constexpr br::Limits kSmall{32, 64, 4, 16};

struct Row {
  const char *id;
  const char *ref;  // RFC section the expectation comes from
  std::string req;
  std::vector<Out> want;
  br::Limits lim = kDef;
  bool split = true;  // also check every fragmentation (off only for very long rows)
};

const std::string H = "Host: a\r\n";

std::string many_headers(int n) {  // Host plus n-1 others
  std::string s = H;
  for (int i = 1; i < n; i++) s += "X-" + std::to_string(i) + ": v\r\n";
  return s;
}

// The request prefixes most rows share.
const std::string G = "GET / HTTP/1.1\r\n";
const std::string P = "POST / HTTP/1.1\r\n";
const std::string TE = "Transfer-Encoding: chunked\r\n";

std::vector<Row> rows_request_line() {
  return {
    // ---- request line (RFC 9112 section 3) ----
    {"get-minimal", "9112 3", G + H + "\r\n", {OK("GET", "/", 1)}},
    {"http10-no-host", "9112 3.2", "GET / HTTP/1.0\r\n\r\n", {OK("GET", "/", 0)}},
    {"head", "9112 3", "HEAD /x HTTP/1.1\r\n" + H + "\r\n", {OK("HEAD", "/x", 1)}},
    {"put-cl0", "9112 6.3", "PUT /f HTTP/1.1\r\n" + H + "Content-Length: 0\r\n\r\n", {OK("PUT", "/f", 2)}},
    {"delete", "9112 3", "DELETE /r/1 HTTP/1.1\r\n" + H + "\r\n", {OK("DELETE", "/r/1", 1)}},
    {"patch", "9112 3", "PATCH /r HTTP/1.1\r\n" + H + "Content-Length: 2\r\n\r\n{}", {OK("PATCH", "/r", 2, "{}")}},
    {"trace", "9112 3", "TRACE / HTTP/1.1\r\n" + H + "\r\n", {OK("TRACE", "/", 1)}},
    {"connect-authority-form", "9112 3.2.3", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", {OK("CONNECT", "example.com:443", 1)}},
    {"options-asterisk-form", "9112 3.2.4", "OPTIONS * HTTP/1.1\r\n" + H + "\r\n", {OK("OPTIONS", "*", 1)}},
    {"absolute-form", "9112 3.2.2", "GET http://example.com/x?y=1 HTTP/1.1\r\nHost: example.com\r\n\r\n", {OK("GET", "http://example.com/x?y=1", 1)}},
    {"absolute-form-no-host-1.1", "9112 3.2", "GET http://example.com/ HTTP/1.1\r\n\r\n", {ST(400)}},
    {"origin-form-query", "9112 3.2.1", "GET /id/1?name=bun HTTP/1.1\r\n" + H + "\r\n", {OK("GET", "/id/1?name=bun", 1)}},
    {"extension-method", "9110 9.1", "PURGE /c HTTP/1.1\r\n" + H + "\r\n", {OK("PURGE", "/c", 1)}},
    {"extension-method-token-chars", "9110 9.1", "M-SEARCH * HTTP/1.1\r\n" + H + "\r\n", {OK("M-SEARCH", "*", 1)}},
    {"lowercase-method-is-a-token", "9110 9.1", "get / HTTP/1.1\r\n" + H + "\r\n", {OK("get", "/", 1)}},
    {"empty-line-before-request", "9112 2.2", "\r\n" + G + H + "\r\n", {OK("GET", "/", 1)}},
    {"many-empty-lines-before", "9112 2.2", "\r\n\r\n\r\n\r\n" + G + H + "\r\n", {OK("GET", "/", 1)}},
    {"bare-lf-before-request", "9112 2.2", "\n" + G + H + "\r\n", {ST(400)}},
    {"empty-method", "9112 3", " / HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"method-non-token", "9112 3", "G(T / HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"method-32-bytes", "9112 3.1", std::string(32, 'M') + " / HTTP/1.1\r\n" + H + "\r\n", {OK(std::string(32, 'M'), "/", 1)}},
    {"method-overlong", "9112 3.1 (SHOULD 501 for a method longer than any implemented)", std::string(33, 'M') + " / HTTP/1.1\r\n" + H + "\r\n", {ST(501)}},
    {"missing-target", "9112 3", "GET HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"double-space", "9112 3", "GET  / HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"tab-separator", "9112 3", "GET\t/ HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"trailing-space-after-version", "9112 3", "GET / HTTP/1.1 \r\n" + H + "\r\n", {ST(400)}},
    {"http09-request", "9112 2.3", "GET /\r\n\r\n", {ST(400)}},
    {"no-version", "9112 3", "GET / \r\n" + H + "\r\n", {ST(400)}},
    {"lowercase-http", "9112 2.3", "GET / http/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"version-1.2-is-1.x", "9110 2.5 (SHOULD process as 1.1)", "GET / HTTP/1.2\r\n" + H + "\r\n", {OK("GET", "/", 1)}},
    {"version-2.0", "9110 15.6.6", "GET / HTTP/2.0\r\n" + H + "\r\n", {ST(505)}},
    {"version-3.0", "9110 15.6.6", "GET / HTTP/3.0\r\n" + H + "\r\n", {ST(505)}},
    {"version-0.9", "9110 15.6.6", "GET / HTTP/0.9\r\n" + H + "\r\n", {ST(505)}},
    {"version-two-digit-minor", "9112 2.3", "GET / HTTP/1.10\r\n" + H + "\r\n", {ST(400)}},
    {"version-no-dot", "9112 2.3", "GET / HTTP/11\r\n" + H + "\r\n", {ST(400)}},
    {"version-bare-lf", "9112 2.2", "GET / HTTP/1.1\n" + H + "\r\n", {ST(400)}},
    {"version-bare-cr", "9112 2.2", "GET / HTTP/1.1\rHost: a\r\n\r\n", {ST(400)}},
    {"target-nul", "9112 3.2", "GET /a"s + '\0' + "b HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"target-ctl-01", "9112 3.2", "GET /a\x01" "b HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"target-del", "9112 3.2", "GET /a\x7f" "b HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"target-tab", "9112 3.2", "GET /a\tb HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"target-bare-cr", "9112 2.2", "GET /a\rb HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"target-bare-lf", "9112 2.2", "GET /a\nb HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"target-non-ascii", "9112 3.2 + 3 (SHOULD 400)", "GET /caf\xc3\xa9 HTTP/1.1\r\n" + H + "\r\n", {ST(400)}},
    {"partial-request-line", "9112 2.2", "GET / HTT", {MORE}},
    {"partial-method", "9112 2.2", "GE", {MORE}},
    {"partial-bad-version-early", "9112 2.3", "GET / HTX", {ST(400)}},
    {"only-empty-line", "9112 2.2", "\r\n", {MORE}},
    {"request-line-only", "9112 2.2", G, {MORE}},

  };
}

std::vector<Row> rows_fields() {
  return {
    // ---- field syntax (RFC 9112 section 5, RFC 9110 section 5) ----
    {"headers-case-and-ows", "9112 5.1", G + "HOST: a\r\nX-A:  \t v w \t \r\nX-B:\r\n\r\n", {OK("GET", "/", 3, "", {{"X-A", "v w"}, {"X-B", ""}})}},
    {"obs-text-in-value", "9110 5.5", G + H + "X: caf\xc3\xa9\r\n\r\n", {OK("GET", "/", 2, "", {{"X", "caf\xc3\xa9"}})}},
    {"obs-fold-space", "9112 5.2", G + H + "X: a\r\n b\r\n\r\n", {ST(400)}},
    {"obs-fold-tab", "9112 5.2", G + H + "X: a\r\n\tb\r\n\r\n", {ST(400)}},
    {"space-before-colon", "9112 5.1", G + H + "X : a\r\n\r\n", {ST(400)}},
    {"tab-before-colon", "9112 5.1", G + H + "X\t: a\r\n\r\n", {ST(400)}},
    {"whitespace-before-first-field", "9112 2.2", G + " Host: a\r\n\r\n", {ST(400)}},
    {"empty-field-name", "9112 5.1", G + H + ": a\r\n\r\n", {ST(400)}},
    {"field-name-non-token", "9110 5.1", G + H + "X@Y: a\r\n\r\n", {ST(400)}},
    {"field-name-non-ascii", "9110 5.1", G + H + "X\xc3\xa9: a\r\n\r\n", {ST(400)}},
    {"field-without-colon", "9112 5", G + H + "X\r\n\r\n", {ST(400)}},
    {"value-nul", "9110 5.5", G + H + "X: a"s + '\0' + "b\r\n\r\n", {ST(400)}},
    {"value-bare-cr", "9112 2.2", G + H + "X: a\rb\r\n\r\n", {ST(400)}},
    {"value-bare-lf", "9112 2.2", G + H + "X: a\nb\r\n\r\n", {ST(400)}},
    {"value-ctl-01", "9110 5.5", G + H + "X: a\x01" "b\r\n\r\n", {ST(400)}},
    {"value-del", "9110 5.5", G + H + "X: a\x7f" "b\r\n\r\n", {ST(400)}},
    {"field-line-bare-lf", "9112 2.2", G + "Host: a\n\r\n", {ST(400)}},
    {"end-of-head-bare-lf", "9112 2.2", G + H + "\n", {ST(400)}},
    {"end-of-head-bare-cr", "9112 2.2", G + H + "\rX", {ST(400)}},
    {"partial-headers", "9112 2.2", G + H + "X: a", {MORE}},
    {"partial-final-cr", "9112 2.2", G + H + "\r", {MORE}},

    // ---- Host (RFC 9112 section 3.2) ----
    {"host-missing-1.1", "9112 3.2", G + "X: a\r\n\r\n", {ST(400)}},
    {"host-repeated-identical", "9112 3.2", G + H + H + "\r\n", {ST(400)}},
    {"host-repeated-different", "9112 3.2", G + H + "Host: b\r\n\r\n", {ST(400)}},
    {"host-repeated-1.0", "9112 3.2", "GET / HTTP/1.0\r\n" + H + H + "\r\n", {ST(400)}},
    {"host-empty-value", "9112 3.2 (empty uri-host)", G + "Host:\r\n\r\n", {OK("GET", "/", 1)}},
    {"host-port-ipv6", "9110 7.2", G + "Host: [::1]:8080\r\n\r\n", {OK("GET", "/", 1)}},
    {"host-invalid-space", "9112 3.2 (MUST 400 invalid Host)", G + "Host: a b\r\n\r\n", {ST(400)}},
    {"host-invalid-slash", "9112 3.2 (MUST 400 invalid Host)", G + "Host: a/b\r\n\r\n", {ST(400)}},

  };
}

std::vector<Row> rows_framing() {
  return {
    // ---- Content-Length (RFC 9112 6.3, RFC 9110 8.6) ----
    {"cl-body", "9112 6.3", P + H + "Content-Length: 5\r\n\r\nhello", {OK("POST", "/", 2, "hello")}},
    {"cl-zero", "9112 6.3", P + H + "Content-Length: 0\r\n\r\n", {OK("POST", "/", 2)}},
    {"cl-leading-zeros", "9110 8.6", P + H + "Content-Length: 007\r\n\r\nabcdefg", {OK("POST", "/", 2, "abcdefg")}},
    {"cl-ows", "9110 5.5", P + H + "Content-Length: \t5 \r\n\r\nhello", {OK("POST", "/", 2, "hello")}},
    {"cl-plus", "9110 8.6", P + H + "Content-Length: +5\r\n\r\nhello", {ST(400)}},
    {"cl-minus", "9110 8.6", P + H + "Content-Length: -1\r\n\r\n", {ST(400)}},
    {"cl-inner-space", "9110 8.6", P + H + "Content-Length: 1 2\r\n\r\n", {ST(400)}},
    {"cl-hex", "9110 8.6", P + H + "Content-Length: 0x5\r\n\r\nhello", {ST(400)}},
    {"cl-empty", "9110 8.6", P + H + "Content-Length:\r\n\r\n", {ST(400)}},
    {"cl-list-identical", "9110 8.6 (MAY reject)", P + H + "Content-Length: 5, 5\r\n\r\nhello", {ST(400)}},
    {"cl-list-different", "9112 6.3", P + H + "Content-Length: 5, 6\r\n\r\nhello!", {ST(400)}},
    {"cl-duplicate-identical", "9110 8.6", P + H + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello", {OK("POST", "/", 3, "hello")}},
    {"cl-duplicate-same-value", "9110 8.6", P + H + "Content-Length: 5\r\nContent-Length: 05\r\n\r\nhello", {OK("POST", "/", 3, "hello")}},
    {"cl-duplicate-different", "9112 6.3", P + H + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", {ST(400)}},
    {"cl-overflow-u64", "9110 8.6", P + H + "Content-Length: 18446744073709551616\r\n\r\n", {ANY({400, 413})}},
    {"cl-overflow-huge", "9110 8.6", P + H + "Content-Length: 99999999999999999999999\r\n\r\n", {ANY({400, 413})}},
    {"cl-int64-max", "9110 8.6", P + H + "Content-Length: 9223372036854775807\r\n\r\n", {ST(413)}},
    {"cl-over-max-body", "design 413", P + H + "Content-Length: 1048577\r\n\r\n", {ST(413)}},
    {"cl-at-max-body-needs-body", "9112 6.3", P + H + "Content-Length: 1048576\r\n\r\nabc", {MORE}},
    {"cl-body-incomplete", "9112 6.3", P + H + "Content-Length: 10\r\n\r\nhello", {MORE}},
    {"cl-on-get", "9110 9.3.1", "GET / HTTP/1.1\r\n" + H + "Content-Length: 2\r\n\r\nhi", {OK("GET", "/", 2, "hi")}},
    {"cl-body-then-pipelined", "9112 9.3.2", P + H + "Content-Length: 2\r\n\r\nhi" + G + H + "\r\n", {OK("POST", "/", 2, "hi"), OK("GET", "/", 1)}},
    {"cl-expect-100-waits", "9110 10.1.1", P + H + "Expect: 100-continue\r\nContent-Length: 5\r\n\r\n", {MORE}},

    // ---- Transfer-Encoding and smuggling (RFC 9112 6.1, 6.3) ----
    {"te-chunked", "9112 7.1", P + H + TE + "\r\n5\r\nhello\r\n0\r\n\r\n", {OK("POST", "/", 2, "hello")}},
    {"te-chunked-capitalised", "9112 7 (case-insensitive)", P + H + "Transfer-Encoding: Chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", {OK("POST", "/", 2, "x")}},
    {"te-chunked-upper", "9112 7 (case-insensitive)", P + H + "Transfer-Encoding: CHUNKED\r\n\r\n1\r\nx\r\n0\r\n\r\n", {OK("POST", "/", 2, "x")}},
    {"te-chunked-ows", "9110 5.5", P + H + "Transfer-Encoding: \tchunked \r\n\r\n0\r\n\r\n", {OK("POST", "/", 2)}},
    {"cl-then-te", "9112 6.3 (MAY reject; design 400)", P + H + "Content-Length: 6\r\n" + TE + "\r\n0\r\n\r\nG", {ST(400)}},
    {"te-empty", "9112 6.3 (present, chunked not final)", P + H + "Transfer-Encoding:\r\n\r\n", {ST(400)}},
    {"te-only-commas", "9112 6.3 (present, chunked not final)", P + H + "Transfer-Encoding: , ,\r\n\r\n", {ST(400)}},
    {"te-empty-with-cl", "9112 6.1 + 6.3 (smuggling shape)", P + H + "Transfer-Encoding:\r\nContent-Length: 5\r\n\r\nhello", {ST(400)}},
    {"te-then-cl", "9112 6.3 (MAY reject; design 400)", P + H + TE + "Content-Length: 3\r\n\r\n8\r\nSMUGGLED\r\n0\r\n\r\n", {ST(400)}},
    {"te-in-http10", "9112 6.1", "POST / HTTP/1.0\r\n" + TE + "\r\n0\r\n\r\n", {ST(400)}},
    {"te-gzip-chunked", "9112 6.1 (SHOULD 501)", P + H + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", {ST(501)}},
    {"te-split-gzip-then-chunked", "9112 6.1 (SHOULD 501)", P + H + "Transfer-Encoding: gzip\r\n" + TE + "\r\n0\r\n\r\n", {ST(501)}},
    {"te-chunked-gzip", "9112 6.3 (MUST 400: chunked not final)", P + H + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", {ST(400)}},
    {"te-split-chunked-then-gzip", "9112 6.3 (MUST 400: chunked not final)", P + H + TE + "Transfer-Encoding: gzip\r\n\r\n0\r\n\r\n", {ST(400)}},
    {"te-gzip-only", "9112 6.3 (MUST 400: chunked not final)", P + H + "Transfer-Encoding: gzip\r\n\r\n", {ST(400)}},
    {"te-identity", "9112 6.3 (MUST 400: chunked not final)", P + H + "Transfer-Encoding: identity\r\n\r\n", {ST(400)}},
    {"te-xchunked", "9112 6.3 (MUST 400: chunked not final)", P + H + "Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n", {ST(400)}},
    {"te-chunked-twice", "9112 7 (MUST NOT apply twice)", P + H + TE + TE + "\r\n0\r\n\r\n", {ANY({400, 501})}},
    {"te-vertical-tab", "9110 5.5", P + H + "Transfer-Encoding: chunked\x0b\r\n\r\n0\r\n\r\n", {ST(400)}},
    {"te-space-before-colon", "9112 5.1", P + H + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", {ST(400)}},
    {"te-obs-fold", "9112 5.2", P + H + "Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n", {ST(400)}},
    {"te-underscore-is-another-field", "9110 5.1", P + H + "Transfer_Encoding: chunked\r\n\r\n0\r\n\r\n", {OK("POST", "/", 2), ST(400)}},
    {"te-with-cl-zero", "9112 6.3", P + H + "Content-Length: 0\r\n" + TE + "\r\n0\r\n\r\n", {ST(400)}},

  };
}

std::vector<Row> rows_chunked() {
  return {
    // ---- chunked coding (RFC 9112 section 7.1) ----
    {"chunks-two", "9112 7.1", P + H + TE + "\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n", {OK("POST", "/", 2, "abcdefg")}},
    {"chunk-size-upper-hex", "9112 7.1", P + H + TE + "\r\nA\r\n0123456789\r\n0\r\n\r\n", {OK("POST", "/", 2, "0123456789")}},
    {"chunk-size-leading-zeros", "9112 7.1", P + H + TE + "\r\n0005\r\nhello\r\n000\r\n\r\n", {OK("POST", "/", 2, "hello")}},
    {"chunk-ext", "9112 7.1.1", P + H + TE + "\r\n5;a=b\r\nhello\r\n0;c\r\n\r\n", {OK("POST", "/", 2, "hello")}},
    {"chunk-ext-quoted", "9112 7.1.1", P + H + TE + "\r\n5;a=\"x y\"\r\nhello\r\n0\r\n\r\n", {OK("POST", "/", 2, "hello")}},
    {"chunk-ext-bws", "9112 7.1.1", P + H + TE + "\r\n5 ; a = b\r\nhello\r\n0\r\n\r\n", {OK("POST", "/", 2, "hello")}},
    {"chunk-ext-1000", "9112 7.1.1", P + H + TE + "\r\n1;" + std::string(1000, 'e') + "\r\nx\r\n0\r\n\r\n", {OK("POST", "/", 2, "x")}},
    {"chunk-ext-over-limit", "9112 7.1.1 (ought to limit: 4xx)", P + H + TE + "\r\n1;" + std::string(1100, 'e') + "\r\nx\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-size-trailing-ws", "9112 7.1 (grammar: BWS only before ';')", P + H + TE + "\r\n5 \r\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-ext-empty-name", "9112 7.1.1 (grammar: chunk-ext-name = token)", P + H + TE + "\r\n5;\r\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-ext-lf", "9112 7.1.1", P + H + TE + "\r\n5;a\nb\r\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-ext-cr", "9112 7.1.1", P + H + TE + "\r\n5;a\rb\r\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-ext-nul", "9112 7.1.1", P + H + TE + "\r\n5;a"s + '\0' + "\r\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-size-invalid-hex", "9112 7.1", P + H + TE + "\r\n5g\r\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-size-empty", "9112 7.1", P + H + TE + "\r\n\r\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-size-negative", "9112 7.1", P + H + TE + "\r\n-5\r\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-size-0x", "9112 7.1", P + H + TE + "\r\n0x5\r\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-size-overflow", "9112 7.1 (anticipate overflow)", P + H + TE + "\r\n10000000000000000\r\nx\r\n0\r\n\r\n", {ANY({400, 413})}},
    {"chunk-size-over-max-body", "design 413", P + H + TE + "\r\n100001\r\nx", {ST(413)}},
    {"chunk-data-too-long", "9112 7.1", P + H + TE + "\r\n3\r\nabcd\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-data-too-short", "9112 7.1", P + H + TE + "\r\n5\r\nabc\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-size-bare-lf", "9112 7.1", P + H + TE + "\r\n5\nhello\r\n0\r\n\r\n", {ST(400)}},
    {"chunk-data-bare-lf", "9112 7.1", P + H + TE + "\r\n5\r\nhello\n0\r\n\r\n", {ST(400)}},
    {"last-chunk-bare-lf", "9112 7.1", P + H + TE + "\r\n0\n\n", {ST(400)}},
    {"chunk-end-bare-lf", "9112 7.1", P + H + TE + "\r\n0\r\n\n", {ST(400)}},
    {"trailers", "9112 7.1.2", P + H + TE + "\r\n1\r\nx\r\n0\r\nExpires: never\r\nX-Sum: 1\r\n\r\n", {OK("POST", "/", 2, "x")}},
    {"trailer-no-colon", "9112 7.1.2", P + H + TE + "\r\n0\r\nbad trailer\r\n\r\n", {ST(400)}},
    {"trailer-obs-fold", "9112 7.1.2 + 5.2", P + H + TE + "\r\n0\r\nX: a\r\n b\r\n\r\n", {ST(400)}},
    {"trailer-bare-lf", "9112 7.1.2", P + H + TE + "\r\n0\r\nX: a\n\r\n", {ST(400)}},
    {"trailer-nul", "9110 5.5", P + H + TE + "\r\n0\r\nX: a"s + '\0' + "\r\n\r\n", {ST(400)}},
    {"chunked-incomplete", "9112 7.1", P + H + TE + "\r\n5\r\nhel", {MORE}},
    {"chunked-no-last-chunk", "9112 7.1", P + H + TE + "\r\n5\r\nhello\r\n", {MORE}},
    {"chunked-then-pipelined", "9112 9.3.2", P + H + TE + "\r\n2\r\nhi\r\n0\r\n\r\n" + G + H + "\r\n", {OK("POST", "/", 2, "hi"), OK("GET", "/", 1)}},
    {"chunked-smuggle-attempt-body", "9112 7.1", P + H + TE + "\r\n0\r\n\r\nGET /admin HTTP/1.1\r\n" + H + "\r\n", {OK("POST", "/", 2), OK("GET", "/admin", 1)}},

  };
}

std::vector<Row> rows_pipelining_limits() {
  return {
    // ---- pipelining ----
    {"pipelined-three", "9112 9.3.2", G + H + "\r\n" + "GET /b HTTP/1.1\r\n" + H + "\r\n" + "GET /c HTTP/1.1\r\n" + H + "Connection: close\r\n\r\n", {OK("GET", "/", 1), OK("GET", "/b", 1), OK("GET", "/c", 2)}},
    {"pipelined-then-bad", "9112 9.3.2", G + H + "\r\n" + "GET / HTTP/1.1\r\n\r\n", {OK("GET", "/", 1), ST(400)}},
    {"pipelined-then-partial", "9112 9.3.2", G + H + "\r\nGET /b HT", {OK("GET", "/", 1), MORE}},

    // ---- limits: 414, 431, 413 (design "Bad input") ----
    {"uri-at-limit", "design 414", "GET /" + std::string(8191, 'a') + " HTTP/1.1\r\n" + H + "\r\n", {OK("GET", "/" + std::string(8191, 'a'), 1)}, kDef, false},
    {"uri-over-limit", "design 414", "GET /" + std::string(8192, 'a') + " HTTP/1.1\r\n" + H + "\r\n", {ST(414)}, kDef, false},
    {"uri-over-limit-incomplete", "design 414", "GET /" + std::string(9000, 'a'), {ST(414)}, kDef, false},
    {"headers-64", "design 431", G + many_headers(64) + "\r\n", {OK("GET", "/", 64)}},
    {"headers-65", "design 431", G + many_headers(65) + "\r\n", {ST(431)}},
    {"header-bytes-over", "design 431", G + H + "X: " + std::string(16400, 'v') + "\r\n\r\n", {ST(431)}, kDef, false},
    {"header-bytes-over-incomplete", "design 431", G + H + "X: " + std::string(16400, 'v'), {ST(431)}, kDef, false},
    {"small-uri-at-limit", "design 414", "GET /" + std::string(31, 'a') + " HTTP/1.1\r\n" + H + "\r\n", {OK("GET", "/" + std::string(31, 'a'), 1)}, kSmall},
    {"small-uri-over", "design 414", "GET /" + std::string(32, 'a') + " HTTP/1.1\r\n" + H + "\r\n", {ST(414)}, kSmall},
    {"small-headers-4", "design 431", G + many_headers(4) + "\r\n", {OK("GET", "/", 4)}, kSmall},
    {"small-headers-5", "design 431", G + many_headers(5) + "\r\n", {ST(431)}, kSmall},
    {"small-header-bytes-over", "design 431", G + H + "X: " + std::string(60, 'v') + "\r\n\r\n", {ST(431)}, kSmall},
    {"small-header-over-ends-at-cr", "design 431 (over the limit is final)", G + H + "X: " + std::string(60, 'v') + "\r", {ST(431)}, kSmall},
    {"small-cl-at-max", "design 413", P + H + "Content-Length: 16\r\n\r\n" + std::string(16, 'b'), {OK("POST", "/", 2, std::string(16, 'b'))}, kSmall},
    {"small-cl-over-max", "design 413", P + H + "Content-Length: 17\r\n\r\n" + std::string(17, 'b'), {ST(413)}, kSmall},
    {"small-chunked-at-max", "design 413", P + H + TE + "\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n", {OK("POST", "/", 2, "1234567812345678")}, kSmall},
    {"small-chunked-over-max", "design 413", P + H + TE + "\r\n8\r\n12345678\r\n9\r\n123456789\r\n0\r\n\r\n", {ST(413)}, kSmall},
    {"small-trailer-fills-limit", "9112 7.1.2 (any fragmentation)", P + H + TE + "\r\n0\r\nX: " + std::string(59, 't') + "\r\n\r\n", {OK("POST", "/", 2)}, kSmall},
    {"small-trailer-over-limit", "design 431", P + H + TE + "\r\n0\r\nX: " + std::string(60, 't') + "\r\n\r\n", {ST(431)}, kSmall},
  };
}

std::vector<Row> rows() {
  std::vector<Row> all;
  for (auto part : {rows_request_line, rows_fields, rows_framing, rows_chunked, rows_pipelining_limits})
    for (Row &r : part()) all.push_back(std::move(r));
  return all;
}

}  // namespace
