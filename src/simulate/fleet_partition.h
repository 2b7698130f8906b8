// Evaluating a cache-oblivious routing: split the Trace into one sub-trace per worker (replay order
// kept, block ids remapped densely per worker, parent links rebuilt), and evaluate the workers'
// eviction policy on each at every per-worker capacity (LRU: all capacities from one curve).
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/fleet_result.h"
#include "simulate/fleet_routes.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

// The requests routed to `worker`, as a Trace of their own (no conversations; parent links by first
// appearance in the sub-trace);
// *first_measured receives the index of its first request at or after the fleet's first measured
// request.
Trace WorkerSubTrace(const Trace& trace, const std::vector<uint32_t>& routes, uint32_t worker,
                     size_t fleet_first_measured, size_t* first_measured);

// One FleetPoint per capacity in options.capacity_blocks. Workers' curves run in parallel.
std::vector<FleetPoint> EvaluateStaticRoutes(const Trace& trace, const StaticRoutes& routes,
                                             const ReplayOptions& replay,
                                             const FleetOptions& options);

}  // namespace ltl
