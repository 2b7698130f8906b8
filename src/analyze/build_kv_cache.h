// BuildKvCacheSection: runs the eviction policies a profile asked for (FIFO, LRU, optimal) at every
// capacity — GiB budgets of a model's KV cache when the bytes per token are known, else the
// profile's token/block capacities — and stores the rows in Profile::kv_cache.
#pragma once

#include <optional>
#include <vector>

#include "analyze/build_profile.h"
#include "analyze/profile.h"
#include "models/kv_models.h"
#include "simulate/policy_sweep.h"
#include "simulate/replay_options.h"
#include "simulate/trace.h"

namespace ltl {

struct KvCacheRequest {
  std::vector<const EvictionPolicy*> policies = {&LruEviction()};
  std::optional<KvMemory> memory;  // set: capacities are `gib` budgets
  std::vector<double> gib;         // budgets in GiB (with memory)
  unsigned threads = 0;            // 0 = hardware concurrency
};

// True when the request asks for anything beyond the default LRU curve.
bool WantsKvCacheSection(const KvCacheRequest& request);

// Without memory, capacities are `fallback` (the profile's token/block capacities).
void BuildKvCacheSection(const Trace& trace, const ReplayOptions& options,
                         const KvCacheRequest& request, const CapacitySpec& fallback, Profile* p);

}  // namespace ltl
