// WorkerCache: one worker's LRU block cache in a cache-aware fleet replay. Same semantics as
// ReplayLruAt (a request's hit is its leading run of cached blocks; then it touches its blocks,
// evicting the least recently touched beyond the capacity). A fleet holds N of these per replay, so
// the block -> node index is either a dense array over the trace's ids (fast; 4 bytes per distinct
// block per worker) or a hash map whose memory follows the cache's size; the caller chooses.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <vector>

#include "simulate/recency_list.h"

namespace ltl {

class WorkerCache {
 public:
  // dense_blocks > 0: index ids 0..dense_blocks-1 with an array; 0: with a hash map.
  explicit WorkerCache(uint64_t capacity_blocks, uint32_t dense_blocks = 0);

  // Leading blocks of ids[0..k) present in the cache.
  uint32_t Match(const uint32_t* ids, uint32_t k) const;
  // Makes b the most recently used block, inserting it (and evicting) when absent.
  void Touch(uint32_t b);
  uint64_t size() const { return size_; }

 private:
  uint32_t Find(uint32_t b) const;
  void SetIndex(uint32_t b, uint32_t node);

  uint64_t capacity_;
  uint64_t size_ = 0;
  std::vector<uint32_t> dense_;                    // block -> node, when dense
  absl::flat_hash_map<uint32_t, uint32_t> index_;  // block -> node, otherwise
  std::vector<uint32_t> block_;                    // node -> block
  RecencyList order_;                              // nodes, most to least recently used
};

}  // namespace ltl
