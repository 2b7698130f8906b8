// Round-robin routing, and the dispatcher over the cache-oblivious policies (see fleet_routes.h).
#include "simulate/fleet_routes.h"

namespace ltl {

StaticRoutes RouteRoundRobin(const Trace& trace, uint32_t workers) {
  StaticRoutes out;
  out.worker.resize(trace.requests.size());
  for (size_t i = 0; i < out.worker.size(); ++i) out.worker[i] = static_cast<uint32_t>(i % workers);
  return out;
}

StaticRoutes RouteStatically(const Trace& trace, RoutingPolicy policy,
                             const FleetOptions& options) {
  switch (policy) {
    case RoutingPolicy::kRandom:
      return RouteRandom(trace, options.workers, options.seed);
    case RoutingPolicy::kSession:
      return RouteSession(trace, options.workers);
    case RoutingPolicy::kPrefixHash:
      return RoutePrefixHash(trace, options.workers, options.prefix_blocks);
    default:
      return RouteRoundRobin(trace, options.workers);
  }
}

}  // namespace ltl
