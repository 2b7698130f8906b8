// LeafHeap: an indexed binary max-heap of dense block ids ordered by (next use, id), for the
// optimal replay's victim choice. The key lives in a caller-owned array that must not change while
// the block is in the heap. Erase by id is O(log n) through a position index. Hand-written because
// std::priority_queue cannot erase arbitrary entries and a node-based std::set costs an allocation
// per insertion on a path taken tens of millions of times.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ltl {

class LeafHeap {
 public:
  static constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();

  LeafHeap(uint32_t num_blocks, const std::vector<uint32_t>& next_use)
      : key_(next_use), pos_(num_blocks, kAbsent) {}

  bool empty() const { return heap_.empty(); }
  bool Contains(uint32_t b) const { return pos_[b] != kAbsent; }
  // The block with the furthest next use; among equal next uses the highest id (first seen last).
  uint32_t Top() const { return heap_.front(); }

  void Push(uint32_t b) {
    pos_[b] = static_cast<uint32_t>(heap_.size());
    heap_.push_back(b);
    SiftUp(heap_.size() - 1);
  }

  void Erase(uint32_t b) {
    const uint32_t at = pos_[b];
    if (at == kAbsent) return;
    pos_[b] = kAbsent;
    const uint32_t last = heap_.back();
    heap_.pop_back();
    if (at == heap_.size()) return;
    heap_[at] = last;
    pos_[last] = at;
    SiftUp(at);
    SiftDown(pos_[last]);
  }

 private:
  bool Above(uint32_t a, uint32_t b) const {
    return key_[a] != key_[b] ? key_[a] > key_[b] : a > b;
  }
  void Place(size_t at, uint32_t b) {
    heap_[at] = b;
    pos_[b] = static_cast<uint32_t>(at);
  }
  void SiftUp(size_t at) {
    const uint32_t b = heap_[at];
    while (at > 0) {
      const size_t up = (at - 1) / 2;
      if (!Above(b, heap_[up])) break;
      Place(at, heap_[up]);
      at = up;
    }
    Place(at, b);
  }
  void SiftDown(size_t at) {
    const uint32_t b = heap_[at];
    const size_t n = heap_.size();
    while (true) {
      size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && Above(heap_[child + 1], heap_[child])) ++child;
      if (!Above(heap_[child], b)) break;
      Place(at, heap_[child]);
      at = child;
    }
    Place(at, b);
  }

  const std::vector<uint32_t>& key_;
  std::vector<uint32_t> pos_;
  std::vector<uint32_t> heap_;
};

}  // namespace ltl
