// Fleets of engine KV pools (--workers N --engine vllm): each worker is its engine's pool with
// requests in flight (engine_worker.h) — requests wait in the worker's queue when its pool or its
// --max-num-seqs is full, hit what the pool holds at admission, and hold their blocks until they
// complete. Cache-oblivious routes are decided first and each worker's requests replayed through
// its own pool; a cache-aware router is replayed with the fleet request by request, seeing each
// worker's pool (the leading blocks it holds now: the engine's KV events) and its in-flight
// requests (queued or running: the router's own count, +1 at dispatch, -1 at completion) and the
// blocks those reserve. Rules: docs/SEMANTICS.md "Engine KV pool" and "Fleets".
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/fleet_result.h"
#include "simulate/fleet_routes.h"
#include "simulate/replay_options.h"
#include "simulate/routing_policy.h"
#include "simulate/trace.h"

namespace ltl {

// Static routes through per-worker pools, one point per options.capacity_blocks entry.
std::vector<FleetPoint> EvaluateStaticRoutesOnEngines(const Trace& trace,
                                                      const StaticRoutes& routes,
                                                      const ReplayOptions& replay,
                                                      const FleetOptions& options);

// A cache-aware router over per-worker pools of `capacity_blocks` each.
FleetPoint SimulateCacheAwareOnEngines(const Trace& trace, const CacheAwareRouter& router,
                                       uint64_t capacity_blocks, const ReplayOptions& replay,
                                       const FleetOptions& options);

// The pooled bound with engines: one pool of `capacity_blocks` (workers x the per-worker size).
HitTokens PooledEngineBound(const Trace& trace, const ReplayOptions& replay,
                            const FleetOptions& options, uint64_t capacity_blocks);

}  // namespace ltl
