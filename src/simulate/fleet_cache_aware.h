// Replaying a cache-aware routing (prefix-aware, kv-cost, ...) at one per-worker capacity: routing
// depends on every worker's cache and load as each request arrives, so the whole fleet is replayed
// request by request — N online caches of the workers' eviction policy (which must be online()),
// the OutstandingLoad model, and the router's choice.
#pragma once

#include <cstdint>

#include "simulate/fleet_result.h"
#include "simulate/replay_options.h"
#include "simulate/routing_policy.h"
#include "simulate/trace.h"

namespace ltl {

// Workers x distinct blocks up to which worker caches index blocks with dense arrays (an LRU
// worker cache links block ids themselves, 8 bytes each: 256 MiB per replay at the limit, plus per
// block one byte, or eight past 8 workers, for the fleet's holder sets); beyond it they use hash
// maps sized by their contents.
constexpr uint64_t kDenseIndexLimit = 32ull << 20;

// default_output_tokens stands in for requests whose output length is unknown.
FleetPoint SimulateCacheAware(const Trace& trace, const CacheAwareRouter& router,
                              uint64_t capacity_blocks, const ReplayOptions& replay,
                              const FleetOptions& options, int64_t default_output_tokens);

}  // namespace ltl
