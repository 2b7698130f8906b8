// Cache-oblivious routing: each function assigns every request of a Trace (replay order) to a
// worker without looking at cache state, so the routing can be decided first and each worker's
// sub-trace replayed afterwards with the worker eviction policy (fleet_partition.h). Each is
// wrapped as a registered StaticRouter in its own file (routing_policy.h).
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/trace.h"

namespace ltl {

struct StaticRoutes {
  std::vector<uint32_t> worker;    // per request, replay order
  uint64_t fallback_requests = 0;  // requests without the policy's key, routed round-robin
};

// Request i goes to worker i mod N.
StaticRoutes RouteRoundRobin(const Trace& trace, uint32_t workers);
// Uniform over workers from a seeded 64-bit Mersenne Twister (same seed, same routes everywhere).
StaticRoutes RouteRandom(const Trace& trace, uint32_t workers, uint64_t seed);
// Rendezvous hash of the conversation; requests without one go round-robin among themselves.
StaticRoutes RouteSession(const Trace& trace, uint32_t workers);
// Rendezvous hash of the first min(k, blocks) block ids; requests without blocks go round-robin.
StaticRoutes RoutePrefixHash(const Trace& trace, uint32_t workers, uint32_t k);

}  // namespace ltl
