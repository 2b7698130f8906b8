// The "lru" eviction policy: least recently used, with the touch order of ReplayOptions (vLLM's
// tail-first by default). Evaluated for every capacity at once from the one-pass curve
// (lru_curve.h); online as a WorkerCache (fleet_worker_cache.h).
#include "simulate/eviction_policy.h"
#include "simulate/fleet_worker_cache.h"
#include "simulate/lru_curve.h"

namespace ltl {
namespace {

class LruCache final : public BlockCache {
 public:
  LruCache(uint64_t capacity, uint32_t dense) : cache_(capacity, dense) {}
  uint32_t Match(const uint32_t* ids, uint32_t n) const override { return cache_.Match(ids, n); }
  void Admit(const uint32_t* ids, uint32_t n, uint32_t /*hit*/, EvictOrder order) override {
    cache_.TouchAll(ids, n, order == EvictOrder::kTailFirst);
  }
  uint64_t size() const override { return cache_.size(); }

 private:
  WorkerCache cache_;
};

class LruPolicy final : public EvictionPolicy {
 public:
  std::string_view name() const override { return "lru"; }
  std::string_view summary() const override {
    return "least recently used (exact at every size from one pass over the trace)";
  }
  bool one_pass() const override { return true; }
  std::vector<ReplayResult> Evaluate(const Trace& trace, const ReplayOptions& options,
                                     const std::vector<uint64_t>& capacities,
                                     const PreparedTrace*) const override {
    const LruCurve curve = LruCurve::Compute(trace, options);
    const size_t first = FirstMeasuredIndex(trace, options);
    // LRU inserts every touched block, so its occupancy is min(distinct seen, capacity): the cache
    // is under pressure at the measured window's start iff more distinct blocks came before it.
    const uint64_t seen = first == 0 ? trace.num_blocks : DistinctBlocksBefore(trace, first);
    std::vector<ReplayResult> out;
    out.reserve(capacities.size());
    for (uint64_t c : capacities) {
      ReplayResult r;
      r.hit = curve.At(c);
      r.measured_tokens = curve.measured_tokens();
      r.measured_requests = curve.measured_requests();
      r.underfilled = seen < c;
      out.push_back(r);
    }
    return out;
  }
  bool online() const override { return true; }
  std::unique_ptr<BlockCache> MakeCache(uint64_t capacity, uint32_t dense) const override {
    return std::make_unique<LruCache>(capacity, dense);
  }
};

}  // namespace

const EvictionPolicy& LruEviction() {
  static const LruPolicy policy;
  return policy;
}

}  // namespace ltl
