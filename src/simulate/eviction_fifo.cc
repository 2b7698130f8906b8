// The "fifo" eviction policy: first in, first out; hits do not refresh a block (fifo_cache.h). An
// OnlinePolicy: its whole-trace evaluation (and ReplayFifoAt) replays this cache per capacity.
#include "simulate/eviction_policy.h"
#include "simulate/fifo_cache.h"

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

class FifoPolicy final : public OnlinePolicy {
 public:
  std::string_view name() const override { return "fifo"; }
  std::string_view summary() const override {
    return "first in, first out (a hit does not refresh a block)";
  }
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
