// Fleet simulation settings: the routing policies, the workers, their eviction policy and
// per-worker cache sizes, the policies' knobs, and the load model that decides how long a request
// stays outstanding on its worker (docs/SEMANTICS.md, "Fleets").
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ltl {

class RoutingPolicy;   // simulate/routing_policy.h
class EvictionPolicy;  // simulate/eviction_policy.h
class KvEngine;        // simulate/engine_pool.h

// A per-worker capacity that never evicts.
constexpr uint64_t kUnboundedCapacity = std::numeric_limits<uint64_t>::max();

// How long a request occupies its worker: from arrival until
//   arrival + uncached prefill tokens / prefill_rate + output tokens / decode_rate,
// where, with prefill_queue, the prefill starts only once the worker has finished prefilling the
// requests routed to it before (the prefill rate is the worker's, shared by its requests).
// Defaults (docs/SEMANTICS.md): one H100 serving an 8B-70B model — prefill is compute-bound,
// 2 x params FLOP per token at ~50% of the H100's dense peak gives ~31K tok/s (8B, BF16) down to
// ~7K tok/s (70B, FP8); decode is memory-bound, ~20 ms between tokens per stream in a busy batch.
struct LoadModel {
  double prefill_rate = 10000;  // prompt tokens per second, one request on one worker
  double decode_rate = 50;      // output tokens per second, per request (stream)
  bool prefill_queue = true;    // a worker prefills one request after another
};

// One `--router-param NAME.KEY=VALUE` (checked by ParseRouterParam, simulate/routing_policy.h).
struct RouterParamSetting {
  std::string router, key;
  double value = 0;
};

struct FleetOptions {
  uint32_t workers = 1;
  std::vector<uint64_t> capacity_blocks;  // per worker, ascending; kUnboundedCapacity allowed
  std::vector<const RoutingPolicy*> policies;
  const EvictionPolicy* worker_policy =
      nullptr;  // each worker's cache; null = LRU (WorkerPolicyOf)
  // --engine: each worker, and the pooled bound, is this engine's KV pool with requests in flight
  // (fleet_engine.h); null = ideal caches of cached blocks only (worker_policy applies).
  const KvEngine* engine = nullptr;
  uint32_t max_num_seqs = 256;         // --max-num-seqs of each worker's engine
  uint64_t seed = 1;                   // random routing
  uint32_t prefix_blocks = 1;          // k of prefix-hash
  double balance_rel_threshold = 1.5;  // prefix-aware guard: busiest > rel x least busy ...
  int64_t balance_abs_threshold = 64;  // ... and busiest - least busy > abs (outstanding requests)
  double kv_cost_weight = 1.0;         // w of kv-cost
  LoadModel load;
  std::vector<RouterParamSetting> router_params;  // --router-param, in command-line order
  bool keep_routes = false;                       // --routes-out: keep every request's worker
  unsigned threads = 0;                           // 0 = std::thread::hardware_concurrency()
  double kv_bytes_per_token = 0;  // > 0 when a model is known: sizes are also shown in GiB
  bool sizes_in_gib = false;      // the sizes were asked for in GiB (terminal labels)
  // --router-sweep: empty, or one per `policies` entry: the parameter that entry alone runs with
  // (router "" = an entry of --routing). SimulateFleet hands each entry PolicyEntryOptions().
  std::vector<RouterParamSetting> policy_sweeps;
  // In the options one policy entry runs with (PolicyEntryOptions, simulate/routing_policy.h):
  // its sweep setting, applied after router_params (router "" = none).
  RouterParamSetting sweep;
};

// The workers' eviction policy: options.worker_policy, or LRU when unset.
const EvictionPolicy& WorkerPolicyOf(const FleetOptions& options);

}  // namespace ltl
