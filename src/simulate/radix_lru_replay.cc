// Radix-tree LRU replay: per tree node a presence bit, its cached-children count, its parent, its
// last access time and a lock stamp; evictable leaves in a lazily invalidated min-heap of access
// times (an entry is stale when its node is gone, has a cached child, or was accessed since).
// Written by hand: no library keeps a leaf-only LRU over a tree with locked paths.
#include "simulate/radix_lru_replay.h"

#include <absl/container/flat_hash_map.h>

#include <algorithm>
#include <limits>

namespace ltl {
namespace {

constexpr uint32_t kRoot = std::numeric_limits<uint32_t>::max();

struct HeapEntry {
  uint64_t time;
  uint32_t node;
};
// std::*_heap keep the greatest element first: "greater" = evicted later. Least recent first;
// equal times (never, the clock is strictly increasing) would go to the higher node, as in the
// simulator's heap of (time, -node).
struct EvictsLater {
  bool operator()(const HeapEntry& a, const HeapEntry& b) const {
    return a.time != b.time ? a.time > b.time : a.node < b.node;
  }
};

class RadixLru {
 public:
  RadixLru(uint32_t num_nodes, uint64_t capacity)
      : present_(num_nodes, 0),
        children_(num_nodes, 0),
        parent_(num_nodes, kRoot),
        time_(num_nodes, 0),
        lock_(num_nodes, 0),
        capacity_(capacity) {}

  uint64_t size() const { return size_; }

  uint32_t Match(const uint32_t* nodes, uint32_t n) const {
    uint32_t k = 0;
    while (k < n && present_[nodes[k]]) ++k;
    return k;
  }

  // The request (stamp > 0, distinct per request) found nodes[0..hit) cached.
  void Admit(const uint32_t* nodes, uint32_t n, uint32_t hit, uint32_t stamp) {
    MaybeCompact();
    for (uint32_t j = 0; j < hit; ++j) Touch(nodes[j]);  // head first: deeper = more recent
    for (uint32_t j = 0; j < hit; ++j) lock_[nodes[j]] = stamp;
    stamp_ = stamp;
    for (uint32_t j = hit; j < n; ++j) {
      const uint32_t node = nodes[j];
      if (present_[node]) continue;
      if (size_ >= capacity_ && !EvictLeaf()) break;
      const uint32_t parent = j == 0 ? kRoot : nodes[j - 1];
      if (size_ >= capacity_ || (parent != kRoot && !present_[parent])) break;
      present_[node] = 1;
      parent_[node] = parent;
      if (parent != kRoot) ++children_[parent];
      ++size_;
      Touch(node);
    }
  }

 private:
  void Touch(uint32_t node) {
    time_[node] = ++clock_;
    if (children_[node] == 0) Push(node);
  }
  void Push(uint32_t node) {
    heap_.push_back({time_[node], node});
    std::push_heap(heap_.begin(), heap_.end(), EvictsLater());
  }
  bool Valid(const HeapEntry& e) const {
    return present_[e.node] && children_[e.node] == 0 && time_[e.node] == e.time;
  }
  bool EvictLeaf() {
    bool evicted = false;
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), EvictsLater());
      const HeapEntry e = heap_.back();
      heap_.pop_back();
      if (!Valid(e)) continue;
      if (lock_[e.node] == stamp_) {  // on the running request's matched path
        locked_.push_back(e);
        continue;
      }
      present_[e.node] = 0;
      --size_;
      const uint32_t parent = parent_[e.node];
      if (parent != kRoot && --children_[parent] == 0 && present_[parent]) Push(parent);
      evicted = true;
      break;
    }
    for (const HeapEntry& e : locked_) {
      heap_.push_back(e);
      std::push_heap(heap_.begin(), heap_.end(), EvictsLater());
    }
    locked_.clear();
    return evicted;
  }
  // Stale entries pile up (every access of a leaf pushes one): keep the heap within twice the
  // cached blocks by dropping stale and duplicate entries, amortised O(log) per push.
  void MaybeCompact() {
    if (heap_.size() <= 2 * size_ + 1024) return;
    std::erase_if(heap_, [this](const HeapEntry& e) { return !Valid(e); });
    std::sort(heap_.begin(), heap_.end(),
              [](const HeapEntry& a, const HeapEntry& b) { return a.node < b.node; });
    heap_.erase(
        std::unique(heap_.begin(), heap_.end(),
                    [](const HeapEntry& a, const HeapEntry& b) { return a.node == b.node; }),
        heap_.end());
    std::make_heap(heap_.begin(), heap_.end(), EvictsLater());
  }

  std::vector<uint8_t> present_;
  std::vector<uint32_t> children_;  // cached children
  std::vector<uint32_t> parent_;    // parent when inserted (kRoot for a request's first block)
  std::vector<uint64_t> time_;      // last access (insertion or hit), a strictly increasing clock
  std::vector<uint32_t> lock_;      // stamp of the last request that locked the node
  std::vector<HeapEntry> heap_, locked_;
  uint64_t capacity_;
  uint64_t size_ = 0;
  uint64_t clock_ = 0;
  uint32_t stamp_ = 0;
};

}  // namespace

RadixNodes ComputeRadixNodes(const Trace& trace) {
  RadixNodes out;
  out.num_nodes = trace.num_blocks;
  BlockCursor cursor(trace);
  bool consistent = trace.parent.size() == trace.num_blocks;
  for (size_t i = 0; i < trace.requests.size() && consistent; ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    for (uint32_t j = 0; j < r.num_blocks && consistent; ++j)
      consistent = trace.parent[ids[j]] == (j == 0 ? kNoParent : ids[j - 1]);
  }
  if (consistent) return out;
  // A trie of (parent node, block) edges, nodes numbered by first appearance.
  absl::flat_hash_map<uint64_t, uint32_t> edge;
  out.nodes.resize(trace.num_accesses);
  out.num_nodes = 0;
  for (const TraceRequest& r : trace.requests) {
    const uint32_t* ids = cursor.Blocks(r);
    uint64_t parent = 0;  // 0 = the root; node k is stored as k + 1
    for (uint32_t j = 0; j < r.num_blocks; ++j) {
      auto [it, fresh] = edge.try_emplace((parent << 32) | ids[j], out.num_nodes);
      if (fresh) ++out.num_nodes;
      out.nodes[r.first + j] = it->second;
      parent = uint64_t{it->second} + 1;
    }
  }
  return out;
}

ReplayResult ReplayRadixLruAt(const Trace& trace, const RadixNodes& nodes, uint64_t capacity_blocks,
                              const ReplayOptions& options) {
  ReplayTally tally(trace, capacity_blocks, options);
  RadixLru cache(nodes.num_nodes, capacity_blocks);
  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    const uint32_t* path = nodes.nodes.empty() ? ids : nodes.nodes.data() + r.first;
    const bool measured = tally.Begin(i, cache.size());
    const uint32_t k = cache.Match(path, r.num_blocks);
    if (measured) tally.AddHit(r, ids, k);
    cache.Admit(path, r.num_blocks, k, static_cast<uint32_t>(i + 1));
    tally.End(r, ids);
  }
  return tally.Finish(cache.size());
}

}  // namespace ltl
