// parser_bench.cc — how fast br::parse_head parses a realistic browser request: one request per
// call, and a pipelined read of 10 requests parsed one after another the way process() in
// http_conn.cc walks a receive buffer. Prints ns per request and MB/s for each.
//
//   make bench-parser                       (release flags: clang-19 -O3, ThinLTO, the PGO profile)
//   build/bench/parser_bench [iterations]   (requests per round; default 5000000)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../src/http_parser.h"

namespace {

// A GET for an image as a current desktop browser sends it: 13 header lines, about 700 bytes.
constexpr char kRequest[] =
    "GET /static/img/products/2024/blue-mountain-coffee-250g.webp?v=7f3a9c&w=640 HTTP/1.1\r\n"
    "Host: shop.example.com\r\n"
    "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n"
    "Accept: image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5\r\n"
    "Accept-Language: en-US,en;q=0.7,de;q=0.3\r\n"
    "Accept-Encoding: gzip, deflate, br, zstd\r\n"
    "Referer: https://shop.example.com/products/coffee/single-origin?sort=popular\r\n"
    "Connection: keep-alive\r\n"
    "Cookie: session=4e1c2b0a9d8f7e6c5b4a3f2e1d0c9b8a; cart=3; theme=dark; consent=analytics:0\r\n"
    "Sec-Fetch-Dest: image\r\n"
    "Sec-Fetch-Mode: no-cors\r\n"
    "Sec-Fetch-Site: same-origin\r\n"
    "Priority: u=5, i\r\n"
    "\r\n";

constexpr int kPipelined = 10;
constexpr int kRounds = 3;  // the fastest round is reported: the others lost time to neighbours

const br::Limits kLimits{8192, 16384, 64, 1 << 20};

// Keeps the compiler from proving a parse's result unused, or the buffer unchanged between calls.
inline void clobber(const void *p) { asm volatile("" : : "r"(p) : "memory"); }

// Parses every request in buf[0, len) front to back; returns how many, or -1 on a parse error.
long parse_all(const char *buf, size_t len, br_header *hdrs) {
  long n = 0;
  for (size_t at = 0; at < len; n++) {
    br::Head h;
    int r = br::parse_head(buf + at, len - at, kLimits, &h, hdrs);
    if (r <= 0) return -1;
    at += size_t(r);
  }
  return n;
}

struct Result {
  double ns_per_request, mb_per_s;
};

// Best of kRounds rounds of `calls` parses of buf, each parse_all finding `per_call` requests.
Result measure(const std::string &buf, long calls, long per_call) {
  std::vector<br_header> hdrs(kLimits.max_headers);
  double best = 1e300;
  for (int round = 0; round < kRounds; round++) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; i++) {
      clobber(buf.data());
      if (parse_all(buf.data(), buf.size(), hdrs.data()) != per_call) {
        fprintf(stderr, "parser_bench: the request did not parse\n");
        exit(1);
      }
      clobber(hdrs.data());
    }
    std::chrono::duration<double> s = std::chrono::steady_clock::now() - t0;
    if (s.count() < best) best = s.count();
  }
  double requests = double(calls) * double(per_call);
  return Result{best * 1e9 / requests, double(calls) * double(buf.size()) / best / 1e6};
}

}  // namespace

int main(int argc, char **argv) {
  long iterations = argc > 1 ? atol(argv[1]) : 5000000;
  if (iterations < kPipelined) {
    fprintf(stderr, "usage: parser_bench [requests per round, >= %d]\n", kPipelined);
    return 2;
  }
  std::string one(kRequest, sizeof kRequest - 1), batch;
  for (int i = 0; i < kPipelined; i++) batch += one;
  measure(one, iterations / 10, 1);  // warm-up: caches, branch predictors, CPU frequency

  Result single = measure(one, iterations, 1);
  Result piped = measure(batch, iterations / kPipelined, kPipelined);
  printf("parser_bench: %zu-byte request, %ld requests per round, best of %d rounds\n", one.size(),
         iterations, kRounds);
  printf("  one request per call   %8.1f ns/request  %8.1f MB/s\n", single.ns_per_request, single.mb_per_s);
  printf("  pipelined, 10 per read %8.1f ns/request  %8.1f MB/s\n", piped.ns_per_request, piped.mb_per_s);
  return 0;
}
