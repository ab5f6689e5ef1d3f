// batch.h — the batch ABI: one br_batch per step carries requests and WebSocket events to the
// embedder and brings its answers and sends back (in arenas the loop owns), so a whole read's
// worth of work crosses between the embedder and C once per step.
#pragma once

#include "bindrace.h"

namespace br {

// First thing in a step: the answers and WebSocket sends the embedder wrote into b.
void apply_batch(br_loop *l, br_batch *b);

// Last thing in a step: hands this step's requests, wakes and events over in b.
void fill_batch(br_loop *l, br_batch *b);

}  // namespace br
