// What a fleet simulation found: per routing policy and per-worker capacity, the fleet's hit
// tokens and how requests and uncached prefill spread over the workers; and the two bounds — one
// pooled LRU cache of N x capacity, and the unbounded single-cache ceiling.
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/fleet_options.h"
#include "simulate/replay_options.h"

namespace ltl {

// Population standard deviation / mean of the values (0 when the mean is 0).
double CoefficientOfVariation(const std::vector<double>& values);

struct FleetPoint {
  uint64_t capacity_blocks = 0;          // per worker (kUnboundedCapacity = unbounded)
  int64_t hit_tokens = 0;                // measured requests, summed over workers
  int64_t measured_tokens = 0;           // input tokens of the measured requests
  std::vector<uint64_t> requests;        // measured requests routed to each worker
  std::vector<int64_t> uncached_tokens;  // measured uncached prefill tokens on each worker
  uint64_t guard_triggers = 0;           // prefix-aware: requests the load guard rerouted (all)
  std::vector<uint32_t> routes;  // --routes-out: each request's worker (replay order), else empty
  // --engine (FleetOptions::engine): measured requests' wait from arrival to admission on their
  // worker, and what the workers' pools evicted and skipped (requests larger than a pool), summed.
  double waiting_p50_s = 0, waiting_p95_s = 0;
  uint64_t evictions = 0, too_large = 0;

  double HitRate() const {
    return measured_tokens > 0 ? static_cast<double>(hit_tokens) / measured_tokens : 0.0;
  }
  double RequestsCv() const;
  double UncachedCv() const;
};

struct FleetPolicyResult {
  const RoutingPolicy* policy = nullptr;
  RouterParamSetting sweep;        // --router-sweep: the value this entry ran (router "" = none)
  uint64_t fallback_requests = 0;  // session / prefix-hash: requests routed round-robin (all)
  uint64_t requests_without_text = 0;  // text-view routers: requests routed on block ids (all)
  std::vector<FleetPoint> points;      // one per FleetOptions::capacity_blocks entry
};

struct FleetResult {
  FleetOptions options;   // as run: capacities ascending, knobs resolved
  uint64_t requests = 0;  // all routed requests
  uint64_t measured_requests = 0;
  int64_t measured_tokens = 0;
  bool conversations_known = false;
  int64_t default_output_tokens = 0;  // stands in for unknown output lengths in the load model
  std::vector<HitTokens> pooled;      // per capacity: one cache of workers x capacity (same policy)
  HitTokens ceiling;                  // unbounded single cache
  std::vector<FleetPolicyResult> policies;
  double seconds = 0;  // wall time of the fleet simulation
};

}  // namespace ltl
