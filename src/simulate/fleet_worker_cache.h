// WorkerCache: one worker's LRU block cache in a cache-aware fleet replay. Same semantics as
// ReplayLruAt (a request's hit is its leading run of cached blocks; then it touches its blocks,
// evicting the least recently touched beyond the capacity), but its memory follows the cache's
// size rather than the trace's distinct blocks, since a fleet holds N of them per replay.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <vector>

namespace ltl {

class WorkerCache {
 public:
  explicit WorkerCache(uint64_t capacity_blocks);

  // Leading blocks of ids[0..k) present in the cache.
  uint32_t Match(const uint32_t* ids, uint32_t k) const;
  // Makes b the most recently used block, inserting it (and evicting) when absent.
  void Touch(uint32_t b);
  uint64_t size() const { return index_.size(); }

 private:
  void Unlink(uint32_t node);
  void PushFront(uint32_t node);

  uint64_t capacity_;
  absl::flat_hash_map<uint32_t, uint32_t> index_;  // block -> node
  std::vector<uint32_t> block_, prev_, next_;      // nodes of the recency list
  uint32_t head_, tail_;                           // most / least recently used
};

}  // namespace ltl
