// The cache-aware fleet replay (see fleet_cache_aware.h).
#include "simulate/fleet_cache_aware.h"

#include <memory>

#include "simulate/eviction_policy.h"
#include "simulate/fleet_load.h"
#include "simulate/fleet_worker_cache.h"
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

// The fleet's N worker caches. Workers on LRU (the default) with dense indexes are WorkerCaches
// sharing a FleetHolders, so a request is matched against every worker in one pass over its
// blocks; any other policy (or size) matches each worker's cache in turn. Same matches either way.
class FleetCaches {
 public:
  FleetCaches(const Trace& trace, const FleetOptions& options, uint64_t capacity_blocks) {
    const uint32_t n = options.workers;
    const bool dense = static_cast<uint64_t>(n) * trace.num_blocks <= kDenseIndexLimit;
    const EvictionPolicy& policy = WorkerPolicyOf(options);
    if (dense && &policy == &LruEviction() && n <= FleetHolders::kMaxWorkers) {
      holders_ = std::make_unique<FleetHolders>(n, trace.num_blocks);
      lru_.reserve(n);
      for (uint32_t w = 0; w < n; ++w) {
        lru_.emplace_back(capacity_blocks, trace.num_blocks);
        lru_.back().ShareHolders(holders_.get(), w);
      }
      return;
    }
    for (uint32_t w = 0; w < n; ++w)
      caches_.push_back(policy.MakeCache(capacity_blocks, dense ? trace.num_blocks : 0));
  }
  void MatchAll(const uint32_t* ids, uint32_t k, std::vector<uint32_t>* match) const {
    if (holders_) {
      holders_->MatchAll(ids, k, match->data());
      return;
    }
    for (size_t w = 0; w < caches_.size(); ++w) (*match)[w] = caches_[w]->Match(ids, k);
  }
  // LruCache::Admit (eviction_lru.cc) on the shared path.
  void Admit(uint32_t w, const uint32_t* ids, uint32_t k, uint32_t hit, EvictOrder order) {
    if (holders_)
      lru_[w].TouchAll(ids, k, order == EvictOrder::kTailFirst);
    else
      caches_[w]->Admit(ids, k, hit, order);
  }

 private:
  std::unique_ptr<FleetHolders> holders_;
  std::vector<WorkerCache> lru_;                     // with holders_
  std::vector<std::unique_ptr<BlockCache>> caches_;  // otherwise
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
  FleetCaches caches(trace, options, capacity_blocks);
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
    caches.MatchAll(ids, r.num_blocks, &match);
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
    caches.Admit(w, ids, r.num_blocks, match[w], replay.order);
    if (r.replay_only) continue;  // cache pre-population (cctrace --warm-prefix): no load
    const int64_t output = r.output_tokens >= 0 ? r.output_tokens : default_output_tokens;
    const OutstandingLoad::Times t = load.Admit(w, r.time_s, r.input_tokens - hit, output,
                                                r.num_blocks, trace.LoggedDuration(i));
    run->Admitted(i, w, r.input_tokens - hit, t.first_token_s, t.finish_s);
  }
  return p;
}

}  // namespace ltl
