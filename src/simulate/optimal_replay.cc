// Optimal (Belady with bypass) replay on the prefix tree. Evictable leaves sit in an indexed
// max-heap keyed by next use, so each block access costs O(log n); per-capacity memory is 16 bytes
// per distinct block (plus 8 per evictable leaf), besides the shared next-use array.
#include "simulate/optimal_replay.h"

#include "simulate/leaf_heap.h"
#include "simulate/next_use.h"

namespace ltl {
namespace {

// Per-block replay state, packed so that one cache line serves a block.
struct TreeNode {
  uint32_t next_use = kNeverUsed;  // key of a cached block: its next use
  uint32_t heap_pos = LeafHeap<TreeNode>::kAbsent;
  uint32_t cached_children = 0;
  uint8_t cached = 0;
  uint8_t guarded = 0;  // on the current request's path
};

class PrefixTreeCache {
 public:
  PrefixTreeCache(const Trace& trace, uint64_t capacity)
      : parent_(trace.parent), capacity_(capacity), nodes_(trace.num_blocks), leaves_(nodes_) {}

  bool cached(uint32_t b) const { return nodes_[b].cached != 0; }
  uint64_t size() const { return size_; }

  // Takes a cached block of the request out of the victim candidates for the request's duration.
  // Returns whether b is cached.
  bool Guard(uint32_t b) {
    TreeNode& n = nodes_[b];
    if (!n.cached) return false;
    if (!n.guarded) {
      n.guarded = 1;
      leaves_.Erase(b);
    }
    return true;
  }

  // Tries to insert missing block b whose next use is `next`. Returns false when the request must
  // stop inserting: the parent is not cached, nothing can be evicted, or b is bypassed.
  bool Insert(uint32_t b, uint32_t next) {
    const uint32_t p = parent_[b];
    if (p != kNoParent && !nodes_[p].cached) return false;
    if (size_ >= capacity_) {
      if (leaves_.empty()) return false;
      if (next >= leaves_.TopNextUse()) return false;  // bypass: needed no sooner than the victim
      Evict(leaves_.TopId());
    }
    TreeNode& n = nodes_[b];
    n.cached = 1;
    n.guarded = 1;
    n.next_use = next;
    ++size_;
    if (p != kNoParent && nodes_[p].cached_children++ == 0) leaves_.Erase(p);
    return true;
  }

  // End of request: b (a block of it) takes its next use as key and is a candidate again.
  void Release(uint32_t b, uint32_t next) {
    TreeNode& n = nodes_[b];
    if (!n.guarded) return;
    n.guarded = 0;
    if (!n.cached) return;
    n.next_use = next;
    if (n.cached_children == 0) leaves_.Push(b, next);
  }

 private:
  void Evict(uint32_t v) {
    leaves_.Erase(v);
    nodes_[v].cached = 0;
    --size_;
    const uint32_t p = parent_[v];
    if (p == kNoParent) return;
    TreeNode& pn = nodes_[p];
    if (--pn.cached_children == 0 && !pn.guarded) leaves_.Push(p, pn.next_use);
  }

  const std::vector<uint32_t>& parent_;
  uint64_t capacity_;
  uint64_t size_ = 0;
  std::vector<TreeNode> nodes_;
  LeafHeap<TreeNode> leaves_;  // cached, unguarded blocks with no cached child
};

}  // namespace

ReplayResult ReplayOptimalAt(const Trace& trace, const std::vector<uint32_t>& next_use,
                             uint64_t capacity_blocks, const ReplayOptions& options,
                             std::vector<uint32_t>* hit_blocks) {
  ReplayTally tally(trace, capacity_blocks, options);
  PrefixTreeCache cache(trace, capacity_blocks);
  if (hit_blocks) hit_blocks->assign(trace.requests.size(), 0);

  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    const uint32_t* next = next_use.data() + r.first;
    const bool measured = tally.Begin(i, cache.size());
    // One pass finds the hit (leading cached run) and protects every cached block of the request.
    uint32_t k = r.num_blocks;
    for (uint32_t j = 0; j < r.num_blocks; ++j) {
      if (!cache.Guard(ids[j]) && k == r.num_blocks) k = j;
    }
    if (measured) tally.AddHit(r, ids, k);
    if (hit_blocks) (*hit_blocks)[i] = k;

    for (uint32_t j = k; j < r.num_blocks; ++j) {
      if (cache.cached(ids[j])) continue;
      if (!cache.Insert(ids[j], next[j])) break;
    }
    for (uint32_t j = 0; j < r.num_blocks; ++j) cache.Release(ids[j], next[j]);
    tally.End(r, ids);
  }
  return tally.Finish(cache.size());
}

}  // namespace ltl
