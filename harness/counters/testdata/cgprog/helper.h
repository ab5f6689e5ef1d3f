// mix is always inlined into its caller: its instructions carry this file (fl=) and the
// caller's function (fn=), which is what the by-file view is tested on.
#pragma once
__attribute__((always_inline)) inline unsigned mix(unsigned x) {
  for (unsigned i = 0; i < 100; i++) x = x * 2654435761u + (x >> 7);
  return x;
}
