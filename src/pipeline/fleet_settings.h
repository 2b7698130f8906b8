// FleetSettings: the fleet settings of a profile run (--workers, --per-worker-capacity, --routing
// and the policies' knobs): checks before the input is read, and resolution into FleetOptions
// once the trace's block size is known.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/build_profile.h"
#include "common/status.h"
#include "models/kv_models.h"
#include "simulate/fleet_options.h"

namespace ltl {

struct FleetSettings {
  uint32_t workers = 0;         // 0 = no fleet simulation
  std::string capacity;         // per-worker tokens, e.g. 1M,4M,unbounded
  std::string capacity_blocks;  // per-worker blocks
  std::string capacity_gib;     // per-worker GiB of the model's KV cache
  std::string routing = "all";
  std::string worker_policy = "lru";  // --worker-policy: each worker's eviction policy
  uint64_t seed = 1;
  uint32_t route_prefix_blocks = 0;  // 0 = the blocks covering the first 512 tokens
  double balance_rel_threshold = 1.5;
  int64_t balance_abs_threshold = 64;
  double kv_cost_weight = 1.0;
  double prefill_rate = LoadModel{}.prefill_rate;
  double decode_rate = LoadModel{}.decode_rate;
  bool no_prefill_queue = false;
  std::vector<std::string> router_params;  // --router-param NAME.KEY=VALUE (named routers)
  std::vector<std::string> router_sweeps;  // --router-sweep NAME.KEY=V1,V2,... (one entry each)
  std::string routes_out;                  // --routes-out ROUTES.jsonl ("" = not asked)
};

// The views the --routing list's and --router-sweep's routers read (RouterViewKind bits,
// RoutingPolicy::view_kinds(); the ingest stage then computes them, RequestRecord::view); 0 = none.
uint32_t FleetNeedsRouterViews(const FleetSettings& args);
// aibrix-prefix's block size in bytes when the --routing list or a --router-sweep asks for it,
// else 0 (the ingest stage then cuts its view at that size: GatewayOptions::aibrix_block_bytes).
uint32_t FleetAibrixBlockBytes(const FleetSettings& args);

// Checks the fleet options (lists parse, values in range, GiB sizes have a KV size per token);
// run before reading the input.
Status CheckFleetArgs(const FleetSettings& args, const std::optional<KvMemory>& memory);

// FleetOptions for a trace of this block size, or nullopt without --workers. Per-worker sizes
// default to the single-cache sizes (`capacities`); GiB sizes become blocks as the KV cache
// section's budgets do (KvCapacityBlocks).
std::optional<FleetOptions> ResolveFleetOptions(const FleetSettings& args, uint32_t block_size,
                                                const CapacitySpec& capacities,
                                                const std::optional<KvMemory>& memory);

}  // namespace ltl
