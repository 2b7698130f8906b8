// FirstUseKeysOf: what the cluster's first-use shuffle (hash/first_use.h) needs of the driver's
// trace, per request: its rank (replay position) by merged record, its conversation, length, block
// size and whether it is ever measured; and the two measured windows (steady state, no warm-up).
// A sampled trace gives the same keys as the whole one: sampling drops blocks, never requests.
#pragma once

#include <cstddef>

#include "hash/first_use.h"
#include "simulate/trace.h"

namespace ltl {

// `records`: the size of the record vector the trace was built from (TraceRequest::record).
FirstUseKeys FirstUseKeysOf(const Trace& trace, size_t records, size_t first_steady,
                            size_t first_cold);

}  // namespace ltl
