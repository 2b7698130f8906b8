// The "fifo" eviction policy: first in, first out; hits do not refresh a block (fifo_replay.h).
// One replay per capacity; online as a ring of insertion order with a presence index.
#include <absl/container/flat_hash_set.h>

#include <deque>

#include "simulate/eviction_policy.h"
#include "simulate/fifo_replay.h"

namespace ltl {
namespace {

// The same rule as ReplayFifoAt, one request at a time: missing blocks are inserted head first,
// each evicting the oldest insertion when the cache is full.
class FifoCache final : public BlockCache {
 public:
  FifoCache(uint64_t capacity, uint32_t dense) : capacity_(capacity), dense_(dense, 0) {}
  uint32_t Match(const uint32_t* ids, uint32_t n) const override {
    uint32_t k = 0;
    while (k < n && Has(ids[k])) ++k;
    return k;
  }
  void Admit(const uint32_t* ids, uint32_t n, uint32_t /*hit*/, EvictOrder /*order*/) override {
    if (capacity_ == 0) return;
    for (uint32_t j = 0; j < n; ++j) {
      if (Has(ids[j])) continue;
      if (order_.size() == capacity_) {
        Set(order_.front(), false);
        order_.pop_front();
      }
      order_.push_back(ids[j]);
      Set(ids[j], true);
    }
  }
  uint64_t size() const override { return order_.size(); }

 private:
  bool Has(uint32_t b) const { return dense_.empty() ? present_.contains(b) : dense_[b] != 0; }
  void Set(uint32_t b, bool on) {
    if (!dense_.empty()) {
      dense_[b] = on;
    } else if (on) {
      present_.insert(b);
    } else {
      present_.erase(b);
    }
  }

  uint64_t capacity_;
  std::vector<uint8_t> dense_;
  absl::flat_hash_set<uint32_t> present_;
  std::deque<uint32_t> order_;  // insertion order, oldest first
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
    return std::make_unique<FifoCache>(capacity, dense);
  }
};

}  // namespace

const EvictionPolicy& FifoEviction() {
  static const FifoPolicy policy;
  return policy;
}

}  // namespace ltl
