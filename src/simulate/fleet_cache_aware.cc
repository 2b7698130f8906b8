// The cache-aware fleet replay (see fleet_cache_aware.h).
#include "simulate/fleet_cache_aware.h"

#include "simulate/fleet_load.h"
#include "simulate/fleet_routers.h"
#include "simulate/fleet_worker_cache.h"

namespace ltl {

FleetPoint SimulateCacheAware(const Trace& trace, RoutingPolicy policy, uint64_t capacity_blocks,
                              const ReplayOptions& replay, const FleetOptions& options,
                              int64_t default_output_tokens) {
  const uint32_t n = options.workers;
  FleetPoint p;
  p.capacity_blocks = capacity_blocks;
  p.requests.assign(n, 0);
  p.uncached_tokens.assign(n, 0);
  const bool dense = static_cast<uint64_t>(n) * trace.num_blocks <= kDenseIndexLimit;
  std::vector<WorkerCache> caches(n, WorkerCache(capacity_blocks, dense ? trace.num_blocks : 0));
  OutstandingLoad load(n, options.load);
  std::vector<uint32_t> match(n, 0);
  WorkerView view{&match, &load.requests(), &load.blocks()};
  uint32_t rotor = n - 1;  // the first tie goes to worker 0
  const size_t first_measured = FirstMeasuredIndex(trace, replay.warmup);

  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    load.AdvanceTo(r.time_s);
    for (uint32_t w = 0; w < n; ++w) match[w] = caches[w].Match(ids, r.num_blocks);
    RouteChoice choice = policy == RoutingPolicy::kKvCost
                             ? ChooseKvCost(view, r.num_blocks, options.kv_cost_weight, &rotor)
                             : ChoosePrefixAware(view, options.balance_rel_threshold,
                                                 options.balance_abs_threshold, &rotor);
    const uint32_t w = choice.worker;
    const int64_t hit = HitTokenCount(r, match[w]);
    if (choice.guard) ++p.guard_triggers;
    if (i >= first_measured && !r.replay_only) {
      p.hit_tokens += hit;
      p.measured_tokens += r.input_tokens;
      ++p.requests[w];
      p.uncached_tokens[w] += r.input_tokens - hit;
    }
    WorkerCache& cache = caches[w];
    if (replay.order == EvictOrder::kTailFirst) {
      for (uint32_t j = r.num_blocks; j-- > 0;) cache.Touch(ids[j]);
    } else {
      for (uint32_t j = 0; j < r.num_blocks; ++j) cache.Touch(ids[j]);
    }
    if (r.replay_only) continue;  // cache pre-population (cctrace --warm-prefix): no load
    const int64_t output = r.output_tokens >= 0 ? r.output_tokens : default_output_tokens;
    load.Admit(w, r.time_s, r.input_tokens - hit, output, r.num_blocks);
  }
  return p;
}

}  // namespace ltl
