// prog calls app::Server::serve CALLS times and exits: the fixture program of the cachegrind
// parser and breakdown tests (make-fixtures.sh builds it with CALLS = N and 2N). No libc, so
// its out files hold only these functions. Each call costs the same instructions, so serve's
// slope between the N and 2N runs is its cost per call; start-up and exit cancel.
#include "helper.h"

namespace app {
struct Server {
  __attribute__((noinline)) static unsigned serve(unsigned x) { return mix(x) ^ (x >> 3); }
};
}  // namespace app

// A writable global: valgrind reads an object's symbols only once it has mapped a data segment.
volatile unsigned sink = 0;

extern "C" [[noreturn]] void _start() {
  for (unsigned i = 0; i < CALLS; i++) sink = sink + app::Server::serve(i);
  asm volatile("syscall" ::"a"(60), "D"(0));  // exit(0)
  __builtin_unreachable();
}
