// RecencyList: a doubly linked most-to-least-recently-used order over dense node indexes (two
// uint32 arrays, no allocation per move), the list under the LRU replay (lru_replay.cc) and the
// fleet's per-worker LRU cache (fleet_worker_cache.cc). Callers own what a node stands for.
// Internal to src/simulate/ (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ltl {

class RecencyList {
 public:
  static constexpr uint32_t kNil = std::numeric_limits<uint32_t>::max();

  explicit RecencyList(uint32_t nodes = 0) : prev_(nodes, kNil), next_(nodes, kNil) {}

  // Adds an unlinked node; returns its index.
  uint32_t AddNode() {
    prev_.push_back(kNil);
    next_.push_back(kNil);
    return static_cast<uint32_t>(prev_.size() - 1);
  }
  uint32_t head() const { return head_; }  // most recently used, kNil when empty
  uint32_t tail() const { return tail_; }  // least recently used, kNil when empty

  void Unlink(uint32_t node) {
    const uint32_t p = prev_[node], n = next_[node];
    if (p != kNil)
      next_[p] = n;
    else
      head_ = n;
    if (n != kNil)
      prev_[n] = p;
    else
      tail_ = p;
    prev_[node] = next_[node] = kNil;
  }
  void PushFront(uint32_t node) {
    prev_[node] = kNil;
    next_[node] = head_;
    if (head_ != kNil)
      prev_[head_] = node;
    else
      tail_ = node;
    head_ = node;
  }

 private:
  std::vector<uint32_t> prev_, next_;
  uint32_t head_ = kNil, tail_ = kNil;
};

}  // namespace ltl
