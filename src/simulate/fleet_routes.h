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
  std::vector<uint32_t> worker;        // per request, replay order
  uint64_t fallback_requests = 0;      // requests without the policy's key, routed round-robin
  uint64_t requests_without_text = 0;  // text-view routers: requests routed on block ids
};

// Request i goes to worker i mod N.
StaticRoutes RouteRoundRobin(const Trace& trace, uint32_t workers);
// Uniform over workers from a seeded 64-bit Mersenne Twister (same seed, same routes everywhere).
StaticRoutes RouteRandom(const Trace& trace, uint32_t workers, uint64_t seed);
// Rendezvous hash of the conversation; requests without one go round-robin among themselves.
StaticRoutes RouteSession(const Trace& trace, uint32_t workers);
// Rendezvous hash of the first min(k, blocks) block ids; requests without blocks go round-robin.
StaticRoutes RoutePrefixHash(const Trace& trace, uint32_t workers, uint32_t k);

// vllm-router-prefix (fleet_route_vllm_prefix.cc): longest match of the request's 128-character
// chunks (or block ids without text) on the router's trie, seeded random among the workers holding
// it; a match shorter than min_match_chars goes to the lowest-QPS worker over stats_window_s.
StaticRoutes RouteVllmPrefix(const Trace& trace, uint32_t workers, uint64_t seed,
                             double min_match_chars, double stats_window_s);
// vllm-router-session (fleet_route_vllm_session.cc): consistent hashing of the session key
// (HashRing); without one, the lowest-QPS worker over stats_window_s.
StaticRoutes RouteVllmSession(const Trace& trace, uint32_t workers, double stats_window_s);

}  // namespace ltl
