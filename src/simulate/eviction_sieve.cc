// The "sieve" eviction policy: SIEVE (Zhang, Yang, Yue, Vigfusson, Rashmi, "SIEVE is Simpler than
// LRU: an Efficient Turn-Key Eviction Algorithm for Web Caches", NSDI 2024; one of libCacheSim's
// algorithms). Blocks sit in a queue in insertion order, each with a visited bit that a hit sets;
// to evict, a hand moves from the oldest block toward the newest (resuming where it stopped last
// time, wrapping to the oldest), clearing visited bits, and evicts the first block not visited.
// New blocks enter at the newest end, not visited. Hits never move a block. The example policy of
// CONTRIBUTING.md: this file and one line in eviction_registry.cc. An OnlinePolicy: the cache below
// is the rule, and its whole-trace evaluation replays that cache at each capacity.
#include <absl/container/flat_hash_map.h>

#include "simulate/eviction_policy.h"

namespace ltl {
namespace {

class SieveCache final : public BlockCache {
 public:
  explicit SieveCache(uint64_t capacity) : capacity_(capacity) {}
  uint32_t Match(const uint32_t* ids, uint32_t n) const override {
    uint32_t k = 0;
    while (k < n && slot_.contains(ids[k])) ++k;
    return k;
  }
  // Every block of the request, head first: a cached one is marked visited, a missing one is
  // inserted (evicting first when the cache is full).
  void Admit(const uint32_t* ids, uint32_t n, uint32_t /*hit*/, EvictOrder /*order*/) override {
    if (capacity_ == 0) return;
    for (uint32_t j = 0; j < n; ++j) {
      auto it = slot_.find(ids[j]);
      if (it != slot_.end()) {
        nodes_[it->second].visited = true;
        continue;
      }
      if (slot_.size() == capacity_) Evict();
      Insert(ids[j]);
    }
  }
  uint64_t size() const override { return slot_.size(); }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Node {
    uint32_t block = 0;
    uint32_t newer = kNone, older = kNone;  // neighbours in insertion order
    bool visited = false;
  };

  void Insert(uint32_t block) {
    uint32_t i;
    if (!free_.empty()) {
      i = free_.back();
      free_.pop_back();
    } else {
      i = static_cast<uint32_t>(nodes_.size());
      nodes_.emplace_back();
    }
    nodes_[i] = Node{block, kNone, newest_, false};
    if (newest_ != kNone) nodes_[newest_].newer = i;
    newest_ = i;
    if (oldest_ == kNone) oldest_ = i;
    slot_[block] = i;
  }

  void Evict() {
    uint32_t h = hand_ != kNone ? hand_ : oldest_;
    while (nodes_[h].visited) {
      nodes_[h].visited = false;
      h = nodes_[h].newer != kNone ? nodes_[h].newer : oldest_;
    }
    Node& victim = nodes_[h];
    hand_ = victim.newer;  // kNone: the next eviction starts again at the oldest
    if (victim.older != kNone) nodes_[victim.older].newer = victim.newer;
    if (victim.newer != kNone) nodes_[victim.newer].older = victim.older;
    if (oldest_ == h) oldest_ = victim.newer;
    if (newest_ == h) newest_ = victim.older;
    slot_.erase(victim.block);
    free_.push_back(h);
  }

  uint64_t capacity_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> free_;
  absl::flat_hash_map<uint32_t, uint32_t> slot_;  // block -> node
  uint32_t oldest_ = kNone, newest_ = kNone, hand_ = kNone;
};

class SievePolicy final : public OnlinePolicy {
 public:
  std::string_view name() const override { return "sieve"; }
  std::string_view summary() const override {
    return "SIEVE: insertion order with a visited bit and a moving hand (NSDI 2024)";
  }
  std::unique_ptr<BlockCache> MakeCache(uint64_t capacity, uint32_t /*dense*/) const override {
    return std::make_unique<SieveCache>(capacity);
  }
};

}  // namespace

const EvictionPolicy& SieveEviction() {
  static const SievePolicy policy;
  return policy;
}

}  // namespace ltl
