// Per-capacity LRU replay over an intrusive doubly linked list indexed by dense block id.
#include "simulate/lru_replay.h"

#include <vector>

#include "simulate/recency_list.h"

namespace ltl {
namespace {

class LruList {
 public:
  LruList(uint32_t n, uint64_t capacity) : order_(n), in_(n, 0), capacity_(capacity) {}
  bool Contains(uint32_t b) const { return in_[b]; }
  void Touch(uint32_t b) {
    if (in_[b]) {
      if (order_.head() == b) return;
      order_.Unlink(b);
    } else {
      in_[b] = 1;
      ++size_;
    }
    order_.PushFront(b);
    while (size_ > capacity_) {
      uint32_t victim = order_.tail();
      order_.Unlink(victim);
      in_[victim] = 0;
      --size_;
    }
  }

 private:
  RecencyList order_;  // node = dense block id
  std::vector<uint8_t> in_;
  uint64_t capacity_;
  uint64_t size_ = 0;
};

}  // namespace

HitTokens ReplayLruAt(const Trace& trace, uint64_t capacity_blocks, const ReplayOptions& options) {
  HitTokens h;
  LruList lru(trace.num_blocks, capacity_blocks);
  std::vector<int32_t> owner(trace.num_conversations > 0 ? trace.num_blocks : 0, -1);
  const size_t first_measured = FirstMeasuredIndex(trace, options);
  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    if (i >= first_measured && !r.replay_only) {
      uint32_t k = 0;
      while (k < r.num_blocks && lru.Contains(ids[k])) {
        if (!owner.empty()) {
          int32_t o = owner[ids[k]];
          if (o == -2 || (o != -1 && o != r.conversation)) h.across += BlockTokens(r, k);
        }
        ++k;
      }
      h.hit += HitTokenCount(r, k);
    }
    if (options.order == EvictOrder::kTailFirst) {
      for (uint32_t j = r.num_blocks; j-- > 0;) lru.Touch(ids[j]);
    } else {
      for (uint32_t j = 0; j < r.num_blocks; ++j) lru.Touch(ids[j]);
    }
    for (uint32_t j = 0; j < r.num_blocks && !owner.empty(); ++j) {
      int32_t& o = owner[ids[j]];
      if (o == -1)
        o = r.conversation;
      else if (o != r.conversation)
        o = -2;
    }
  }
  return h;
}

}  // namespace ltl
