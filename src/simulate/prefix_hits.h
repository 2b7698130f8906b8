// UnboundedColdHits: each request's leading hit blocks against one unbounded cache that starts
// empty (no warm-up, nothing evicted) — the reference replay of a "set of seen ids". Used where a
// report needs hits per request rather than totals (the cache-trace parent / sub-agent split).
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/trace.h"

namespace ltl {

// result[i] = leading blocks of trace.requests[i] already touched by an earlier entry. Replay-only
// entries touch their blocks and get 0.
std::vector<uint32_t> UnboundedColdHits(const Trace& trace);

}  // namespace ltl
