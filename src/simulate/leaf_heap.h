// LeafHeap: an indexed binary max-heap of blocks ordered by (next use, id), for the optimal
// replay's victim choice. Entries pack the key as (next_use << 32 | id), so comparisons stay inside
// the heap array and equal next uses order by id (the block first seen most recently wins).
// Erase by id is O(log n) through a caller-owned position field (`Node::heap_pos`), kept in the
// same per-block record as the rest of the replay's state so one cache line serves a block.
// Hand-written because std::priority_queue cannot erase arbitrary entries and a node-based
// std::set costs an allocation per insertion on a path taken tens of millions of times.
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ltl {

template <typename Node>  // Node has a uint32_t heap_pos, kAbsent when not in the heap
class LeafHeap {
 public:
  static constexpr uint32_t kAbsent = std::numeric_limits<uint32_t>::max();

  explicit LeafHeap(std::vector<Node>& nodes) : nodes_(nodes) {}

  bool empty() const { return heap_.empty(); }
  uint32_t TopId() const { return static_cast<uint32_t>(heap_.front()); }
  uint32_t TopNextUse() const { return static_cast<uint32_t>(heap_.front() >> 32); }

  void Push(uint32_t id, uint32_t next_use) {
    heap_.push_back((uint64_t{next_use} << 32) | id);
    SiftUp(heap_.size() - 1);
  }

  void Erase(uint32_t id) {
    const uint32_t at = nodes_[id].heap_pos;
    if (at == kAbsent) return;
    nodes_[id].heap_pos = kAbsent;
    const uint64_t last = heap_.back();
    heap_.pop_back();
    if (at == heap_.size()) return;
    heap_[at] = last;
    SiftDown(SiftUp(at));
  }

 private:
  void Place(size_t at, uint64_t entry) {
    heap_[at] = entry;
    nodes_[static_cast<uint32_t>(entry)].heap_pos = static_cast<uint32_t>(at);
  }
  size_t SiftUp(size_t at) {
    const uint64_t e = heap_[at];
    while (at > 0) {
      const size_t up = (at - 1) / 2;
      if (heap_[up] >= e) break;
      Place(at, heap_[up]);
      at = up;
    }
    Place(at, e);
    return at;
  }
  void SiftDown(size_t at) {
    const uint64_t e = heap_[at];
    const size_t n = heap_.size();
    while (true) {
      size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && heap_[child + 1] > heap_[child]) ++child;
      if (heap_[child] <= e) break;
      Place(at, heap_[child]);
      at = child;
    }
    Place(at, e);
  }

  std::vector<Node>& nodes_;
  std::vector<uint64_t> heap_;
};

}  // namespace ltl
