// The cache-aware fleet replay (see fleet_cache_aware.h).
#include "simulate/fleet_cache_aware.h"

#include <memory>

#include "simulate/eviction_policy.h"
#include "simulate/fleet_load.h"
#include "simulate/routing_policy.h"

namespace ltl {

namespace {
// The run of a StatelessCacheAwareRouter: only the tie rotor lives between requests.
class StatelessRun final : public RouterRun {
 public:
  StatelessRun(const StatelessCacheAwareRouter& router, const Trace& trace,
               const FleetOptions& options)
      : router_(router), trace_(trace), options_(options), rotor_(options.workers - 1) {}
  RouteChoice Choose(size_t i, const WorkerView& view) override {
    return router_.Choose(view, trace_.requests[i], options_, &rotor_);
  }

 private:
  const StatelessCacheAwareRouter& router_;
  const Trace& trace_;
  const FleetOptions& options_;
  uint32_t rotor_;  // the first tie goes to worker 0
};
}  // namespace

std::unique_ptr<RouterRun> StatelessCacheAwareRouter::Start(const Trace& trace,
                                                            const FleetOptions& options) const {
  return std::make_unique<StatelessRun>(*this, trace, options);
}

FleetPoint SimulateCacheAware(const Trace& trace, const CacheAwareRouter& router,
                              uint64_t capacity_blocks, const ReplayOptions& replay,
                              const FleetOptions& options, int64_t default_output_tokens) {
  const uint32_t n = options.workers;
  FleetPoint p;
  p.capacity_blocks = capacity_blocks;
  p.requests.assign(n, 0);
  p.uncached_tokens.assign(n, 0);
  const bool dense = static_cast<uint64_t>(n) * trace.num_blocks <= kDenseIndexLimit;
  const EvictionPolicy& policy = WorkerPolicyOf(options);
  std::vector<std::unique_ptr<BlockCache>> caches;
  for (uint32_t w = 0; w < n; ++w)
    caches.push_back(policy.MakeCache(capacity_blocks, dense ? trace.num_blocks : 0));
  OutstandingLoad load(n, options.load);
  std::vector<uint32_t> match(n, 0);
  WorkerView view{&match, &load.requests(), &load.blocks()};
  const std::unique_ptr<RouterRun> run = router.Start(trace, options);
  const size_t first_measured = FirstMeasuredIndex(trace, replay);

  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    load.AdvanceTo(r.time_s);
    for (uint32_t w = 0; w < n; ++w) match[w] = caches[w]->Match(ids, r.num_blocks);
    const RouteChoice choice = run->Choose(i, view);
    const uint32_t w = choice.worker;
    if (options.keep_routes) p.routes.push_back(w);
    const int64_t hit = HitTokenCount(r, match[w]);
    if (choice.guard) ++p.guard_triggers;
    if (i >= first_measured && !r.replay_only) {
      p.hit_tokens += hit;
      p.measured_tokens += r.input_tokens;
      ++p.requests[w];
      p.uncached_tokens[w] += r.input_tokens - hit;
    }
    caches[w]->Admit(ids, r.num_blocks, match[w], replay.order);
    if (r.replay_only) continue;  // cache pre-population (cctrace --warm-prefix): no load
    const int64_t output = r.output_tokens >= 0 ? r.output_tokens : default_output_tokens;
    const OutstandingLoad::Times t = load.Admit(w, r.time_s, r.input_tokens - hit, output,
                                                r.num_blocks, trace.LoggedDuration(i));
    run->Admitted(i, w, r.input_tokens - hit, t.first_token_s, t.finish_s);
  }
  return p;
}

}  // namespace ltl
