// Optimal (Belady with bypass) replay on the prefix tree. Evictable leaves sit in an indexed
// max-heap keyed by next use, so each block access costs O(log n); per-capacity memory is ~14 bytes
// per distinct block plus the shared next-use array.
#include "simulate/optimal_replay.h"

#include "simulate/leaf_heap.h"
#include "simulate/next_use.h"

namespace ltl {
namespace {

class PrefixTreeCache {
 public:
  PrefixTreeCache(const Trace& trace, uint64_t capacity)
      : parent_(trace.parent),
        capacity_(capacity),
        cached_(trace.num_blocks, 0),
        guarded_(trace.num_blocks, 0),
        children_(trace.num_blocks, 0),
        key_(trace.num_blocks, kNeverUsed),
        leaves_(trace.num_blocks, key_) {}

  bool cached(uint32_t b) const { return cached_[b] != 0; }
  uint64_t size() const { return size_; }

  // Takes the request's cached blocks out of the victim candidates for the request's duration.
  void Guard(uint32_t b) {
    if (!cached_[b] || guarded_[b]) return;
    guarded_[b] = 1;
    leaves_.Erase(b);
  }

  // Tries to insert missing block b whose next use is `next`. Returns false when the request must
  // stop inserting: the parent is not cached, nothing can be evicted, or b is bypassed.
  bool Insert(uint32_t b, uint32_t next) {
    const uint32_t p = parent_[b];
    if (p != kNoParent && !cached_[p]) return false;
    if (size_ >= capacity_) {
      if (leaves_.empty()) return false;
      const uint32_t victim = leaves_.Top();
      if (next >= key_[victim]) return false;  // bypass: b is needed no sooner than the victim
      Evict(victim);
    }
    cached_[b] = 1;
    guarded_[b] = 1;
    key_[b] = next;
    ++size_;
    if (p != kNoParent && children_[p]++ == 0) leaves_.Erase(p);
    return true;
  }

  // End of request: b (a block of it) takes its next use as key and is a candidate again.
  void Release(uint32_t b, uint32_t next) {
    if (!guarded_[b]) return;
    guarded_[b] = 0;
    if (!cached_[b]) return;
    key_[b] = next;
    if (children_[b] == 0) leaves_.Push(b);
  }

 private:
  void Evict(uint32_t v) {
    leaves_.Erase(v);
    cached_[v] = 0;
    --size_;
    const uint32_t p = parent_[v];
    if (p != kNoParent && --children_[p] == 0 && !guarded_[p]) leaves_.Push(p);
  }

  const std::vector<uint32_t>& parent_;
  uint64_t capacity_;
  uint64_t size_ = 0;
  std::vector<uint8_t> cached_;
  std::vector<uint8_t> guarded_;    // on the current request's path
  std::vector<uint32_t> children_;  // cached children per block
  std::vector<uint32_t> key_;       // next use of each cached block
  LeafHeap leaves_;                 // cached, unguarded blocks with no cached child
};

}  // namespace

ReplayResult ReplayOptimalAt(const Trace& trace, const std::vector<uint32_t>& next_use,
                             uint64_t capacity_blocks, const ReplayOptions& options,
                             std::vector<uint32_t>* hit_blocks) {
  ReplayTally tally(trace, capacity_blocks, options);
  PrefixTreeCache cache(trace, capacity_blocks);
  if (hit_blocks) hit_blocks->assign(trace.requests.size(), 0);

  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = trace.begin(r);
    const uint32_t* next = next_use.data() + r.first;
    const bool measured = tally.Begin(i, cache.size());
    uint32_t k = 0;
    while (k < r.num_blocks && cache.cached(ids[k])) ++k;
    if (measured) tally.AddHit(r, ids, k);
    if (hit_blocks) (*hit_blocks)[i] = k;

    for (uint32_t j = 0; j < r.num_blocks; ++j) cache.Guard(ids[j]);
    for (uint32_t j = 0; j < r.num_blocks; ++j) {
      if (cache.cached(ids[j])) continue;
      if (!cache.Insert(ids[j], next[j])) break;
    }
    for (uint32_t j = 0; j < r.num_blocks; ++j) cache.Release(ids[j], next[j]);
    tally.End(r, ids);
  }
  return tally.Finish(cache.size());
}

}  // namespace ltl
