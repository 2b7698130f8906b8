// Per-capacity LRU replay over an intrusive doubly linked list indexed by dense block id.
#include "simulate/lru_replay.h"

#include <limits>
#include <vector>

namespace ltl {
namespace {

constexpr uint32_t kNil = std::numeric_limits<uint32_t>::max();

class LruList {
 public:
  LruList(uint32_t n, uint64_t capacity)
      : prev_(n, kNil), next_(n, kNil), in_(n, 0), capacity_(capacity) {}
  bool Contains(uint32_t b) const { return in_[b]; }
  void Touch(uint32_t b) {
    if (in_[b]) {
      if (head_ == b) return;
      Unlink(b);
    } else {
      in_[b] = 1;
      ++size_;
    }
    PushFront(b);
    while (size_ > capacity_) {
      uint32_t victim = tail_;
      Unlink(victim);
      in_[victim] = 0;
      --size_;
    }
  }

 private:
  void Unlink(uint32_t b) {
    if (prev_[b] != kNil)
      next_[prev_[b]] = next_[b];
    else
      head_ = next_[b];
    if (next_[b] != kNil)
      prev_[next_[b]] = prev_[b];
    else
      tail_ = prev_[b];
    prev_[b] = next_[b] = kNil;
  }
  void PushFront(uint32_t b) {
    prev_[b] = kNil;
    next_[b] = head_;
    if (head_ != kNil)
      prev_[head_] = b;
    else
      tail_ = b;
    head_ = b;
  }
  std::vector<uint32_t> prev_, next_;
  std::vector<uint8_t> in_;
  uint64_t capacity_;
  uint64_t size_ = 0;
  uint32_t head_ = kNil, tail_ = kNil;
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
