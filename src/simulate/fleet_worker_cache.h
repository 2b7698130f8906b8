// WorkerCache: one worker's LRU block cache in a cache-aware fleet replay. Same semantics as
// ReplayLruAt (a request's hit is its leading run of cached blocks; then it touches its blocks,
// evicting the least recently touched beyond the capacity). A fleet holds N of these per replay, so
// the recency list is either over the trace's block ids themselves (dense: fast, a request's
// blocks' links lie side by side; 8 bytes per distinct block per worker) or over nodes found
// through a hash map, whose memory follows the cache's size; the caller chooses.
// FleetHolders: which of a fleet's workers cache each block, one bit per worker, kept in step by
// the WorkerCaches that share it, so one pass over a request's blocks matches every worker.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <vector>

#include "simulate/recency_list.h"

namespace ltl {

// Per block id (dense, below num_blocks), the set of workers (at most kMaxWorkers) whose cache
// holds it: one byte per block for up to 8 workers, else 8 bytes.
class FleetHolders {
 public:
  static constexpr uint32_t kMaxWorkers = 64;
  FleetHolders(uint32_t workers, uint32_t num_blocks);
  void Add(uint32_t b, uint32_t worker) {
    if (narrow_)
      bytes_[b] = static_cast<uint8_t>(bytes_[b] | 1u << worker);
    else
      wide_[b] |= uint64_t{1} << worker;
  }
  void Remove(uint32_t b, uint32_t worker) {
    if (narrow_)
      bytes_[b] = static_cast<uint8_t>(bytes_[b] & ~(1u << worker));
    else
      wide_[b] &= ~(uint64_t{1} << worker);
  }
  // match[w] = the leading blocks of ids[0..k) worker w's cache holds, for every worker: the same
  // as each cache's Match, in one pass (a worker's run ends where its bit first drops).
  void MatchAll(const uint32_t* ids, uint32_t k, uint32_t* match) const;

 private:
  template <typename Mask>
  void MatchWith(const Mask* masks, const uint32_t* ids, uint32_t k, uint32_t* match) const;
  uint32_t workers_;
  bool narrow_;  // workers <= 8: bytes_, else wide_
  std::vector<uint8_t> bytes_;
  std::vector<uint64_t> wide_;
};

class WorkerCache {
 public:
  // dense_blocks > 0: ids 0..dense_blocks-1 are the list's nodes; 0: nodes through a hash map.
  explicit WorkerCache(uint64_t capacity_blocks, uint32_t dense_blocks = 0);

  // Leading blocks of ids[0..k) present in the cache.
  uint32_t Match(const uint32_t* ids, uint32_t k) const;
  // Makes b the most recently used block, inserting it (and evicting) when absent.
  void Touch(uint32_t b);
  // Touches ids[0..n) in `order`'s visiting order (tail first: the last block first).
  void TouchAll(const uint32_t* ids, uint32_t n, bool tail_first);
  // From now on, keep `holders` in step with this cache as worker `worker` (a cache still empty).
  void ShareHolders(FleetHolders* holders, uint32_t worker) {
    holders_ = holders;
    worker_ = worker;
  }
  uint64_t size() const { return size_; }

 private:
  uint32_t Find(uint32_t b) const;
  void SetIndex(uint32_t b, uint32_t node);

  uint64_t capacity_;
  uint64_t size_ = 0;
  bool dense_;                                     // nodes are block ids
  absl::flat_hash_map<uint32_t, uint32_t> index_;  // block -> node, unless dense
  std::vector<uint32_t> block_;                    // node -> block, unless dense
  RecencyList order_;                              // nodes, most to least recently used
  FleetHolders* holders_ = nullptr;                // kept in step when set
  uint32_t worker_ = 0;
};

}  // namespace ltl
