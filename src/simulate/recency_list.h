// RecencyList: a doubly linked most-to-least-recently-used order over dense node indexes (one
// array of (prev, next) pairs, so a node's links share a cache line; no allocation per move), the
// list under the LRU replay (lru_replay.cc) and the fleet's per-worker LRU cache
// (fleet_worker_cache.cc). Callers own what a node stands for. Internal to src/simulate/
// (tests/build/internal_headers.cmake).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace ltl {

class RecencyList {
 public:
  static constexpr uint32_t kNil = std::numeric_limits<uint32_t>::max();

  explicit RecencyList(uint32_t nodes = 0) : links_(nodes) {}

  // Adds an unlinked node; returns its index.
  uint32_t AddNode() {
    links_.push_back({});
    return static_cast<uint32_t>(links_.size() - 1);
  }
  // Whether the node is in the list.
  bool Linked(uint32_t node) const { return links_[node].prev != kNil || head_ == node; }
  uint32_t head() const { return head_; }  // most recently used, kNil when empty
  uint32_t tail() const { return tail_; }  // least recently used, kNil when empty

  void Unlink(uint32_t node) {
    const uint32_t p = links_[node].prev, n = links_[node].next;
    if (p != kNil)
      links_[p].next = n;
    else
      head_ = n;
    if (n != kNil)
      links_[n].prev = p;
    else
      tail_ = p;
    links_[node] = {};
  }
  void PushFront(uint32_t node) {
    links_[node] = {kNil, head_};
    if (head_ != kNil)
      links_[head_].prev = node;
    else
      tail_ = node;
    head_ = node;
  }

 private:
  struct Link {
    uint32_t prev = kNil, next = kNil;
  };
  std::vector<Link> links_;
  uint32_t head_ = kNil, tail_ = kNil;
};

}  // namespace ltl
