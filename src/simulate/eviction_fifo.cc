// The "fifo" eviction policy: first in, first out; hits do not refresh a block. One replay per
// capacity (fifo_replay.h); online as the same FifoCache (fifo_cache.h).
#include "simulate/eviction_policy.h"
#include "simulate/fifo_cache.h"
#include "simulate/fifo_replay.h"

namespace ltl {
namespace {

class OnlineFifo final : public BlockCache {
 public:
  OnlineFifo(uint64_t capacity, uint32_t dense) : cache_(capacity, dense) {}
  uint32_t Match(const uint32_t* ids, uint32_t n) const override { return cache_.Match(ids, n); }
  void Admit(const uint32_t* ids, uint32_t n, uint32_t /*hit*/, EvictOrder /*order*/) override {
    cache_.Admit(ids, n);
  }
  uint64_t size() const override { return cache_.size(); }

 private:
  FifoCache cache_;
};

class FifoPolicy final : public EvictionPolicy {
 public:
  std::string_view name() const override { return "fifo"; }
  std::string_view summary() const override {
    return "first in, first out (a hit does not refresh a block)";
  }
  bool one_pass() const override { return false; }
  std::vector<ReplayResult> Evaluate(const Trace& trace, const ReplayOptions& options,
                                     const std::vector<uint64_t>& capacities,
                                     const PreparedTrace*) const override {
    std::vector<ReplayResult> out;
    for (uint64_t c : capacities) out.push_back(ReplayFifoAt(trace, c, options));
    return out;
  }
  bool online() const override { return true; }
  std::unique_ptr<BlockCache> MakeCache(uint64_t capacity, uint32_t dense) const override {
    return std::make_unique<OnlineFifo>(capacity, dense);
  }
};

}  // namespace

const EvictionPolicy& FifoEviction() {
  static const FifoPolicy policy;
  return policy;
}

}  // namespace ltl
