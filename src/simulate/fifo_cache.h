// FifoCache: the FIFO rule, implemented once. A request's hit is its leading run of cached blocks;
// then its missing blocks are inserted head first, and when the cache is full the block inserted
// longest ago is evicted before each insertion. Hits do not refresh a block. The whole-trace replay
// (fifo_replay.h) and the fleet's online worker caches (eviction_fifo.cc) both run this class.
// Insertion order lives in a ring that grows up to the capacity; presence is a byte per dense
// block id, or a hash set when the caller has no dense bound (fleet workers beyond
// kDenseIndexLimit): O(1) per block access, ~5 bytes per distinct block when dense.
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <absl/container/flat_hash_set.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ltl {

class FifoCache {
 public:
  // dense > 0: block ids are below it (a byte each); 0: a hash set sized by the contents.
  FifoCache(uint64_t capacity, uint32_t dense) : capacity_(capacity), dense_(dense, 0) {}

  uint32_t Match(const uint32_t* ids, uint32_t n) const {
    uint32_t k = 0;
    while (k < n && Has(ids[k])) ++k;
    return k;
  }

  void Admit(const uint32_t* ids, uint32_t n) {
    if (capacity_ == 0) return;
    for (uint32_t j = 0; j < n; ++j) {
      const uint32_t b = ids[j];
      if (Has(b)) continue;  // present now (a hit, or a repeat inserted earlier)
      if (size_ == capacity_) {
        Set(ring_[head_], false);
        head_ = head_ + 1 == ring_.size() ? 0 : head_ + 1;
        --size_;
      }
      if (size_ == ring_.size()) Grow();
      uint64_t slot = head_ + size_;
      if (slot >= ring_.size()) slot -= ring_.size();
      ring_[slot] = b;
      Set(b, true);
      ++size_;
    }
  }

  uint64_t size() const { return size_; }

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
  // Full ring below the capacity: twice the slots (at most the capacity), oldest first again.
  void Grow() {
    const uint64_t slots = std::min<uint64_t>(capacity_, std::max<uint64_t>(16, ring_.size() * 2));
    std::vector<uint32_t> next(slots);
    for (uint64_t k = 0; k < size_; ++k) {
      uint64_t slot = head_ + k;
      if (slot >= ring_.size()) slot -= ring_.size();
      next[k] = ring_[slot];
    }
    ring_.swap(next);
    head_ = 0;
  }

  uint64_t capacity_;
  std::vector<uint8_t> dense_;
  absl::flat_hash_set<uint32_t> present_;
  std::vector<uint32_t> ring_;  // insertion order from head_, size_ entries
  uint64_t head_ = 0, size_ = 0;
};

}  // namespace ltl
