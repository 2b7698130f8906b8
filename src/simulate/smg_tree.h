// SmgTree: the SGLang model gateway's approximate radix tree (StringTree), which the
// sglang-cache-aware router (fleet_route_sglang.cc) keeps of what it routed where, pinned to
// lightseekorg/smg@73da68ca crates/kv_index/src/string_tree.rs. Internal to src/simulate/.
//
// Labels are uint32 ids (a code point's id in its text's chain, or a block id), edges compressed.
// Each node holds the set of tenants (workers) a routed sequence through it was sent to, each with
// a last-access epoch, and a cached tenant. The rules, as string_tree.rs has them:
//  - Match (match_and_insert_with's match): descend while a child starts with the next label; a
//    match ending inside an edge counts the labels it shared and that child is the deepest node.
//    Its tenant: the node's cached tenant while that tenant still holds the node, else (SMG: the
//    first in DashMap iteration order, arbitrary) the lowest worker index, which is then cached. A
//    node's cached tenant is set when the node is created: a new leaf caches the inserting tenant,
//    the upper part of a split copies the lower part's. Every match takes one epoch from the
//    counter; when it is a multiple of 8 the resolved tenant's time on the deepest node is set to
//    it (SMG's "1 in 8" refresh is this counter test, deterministic in a sequential replay).
//  - Insert (insert_text): the whole sequence for the tenant; nodes on the way it did not hold get
//    it with time 0, a split's upper part copies the lower part's tenants and times, and the node
//    where the sequence ends (a new leaf or an existing node) gets the tenant with a fresh epoch.
//  - EvictBySize (evict_tenant_by_size): per tenant over max_size units, its leaves (nodes it
//    holds that no child of it holds) in ascending time are dropped until it is within max_size;
//    a parent left as a leaf joins the queue; a node no tenant holds and without children is
//    removed. Ties in time (SMG: BinaryHeap order, arbitrary): the node created first.
// A label's size in units is 1, or `block_units` for ids below `block_limit` (blocks standing for
// characters or tokens; an edge never mixes the two, its first label decides).
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstdint>
#include <vector>

namespace ltl {

class SmgTree {
 public:
  SmgTree(uint32_t workers, uint32_t block_limit, uint64_t block_units);

  struct Match {
    uint64_t matched = 0;  // labels shared with the tree (a partial edge counts)
    int32_t tenant = -1;   // the deepest node's tenant, -1 when nothing matched
  };
  // Match, with its side effects (tenant cache, epoch, 1-in-8 time refresh).
  Match MatchPrefix(const uint32_t* ids, uint32_t n);
  // Insert the whole sequence for `tenant` (takes one epoch).
  void Insert(const uint32_t* ids, uint32_t n, uint32_t tenant);
  // Evict each tenant's least recently used leaves until it holds at most max_size units.
  void EvictBySize(uint64_t max_size);

  uint64_t size(uint32_t tenant) const { return size_[tenant]; }  // units the tenant holds
  uint64_t epoch() const { return epoch_; }
  size_t live_nodes() const { return nodes_.size() - free_.size() - 1; }  // without the root

 private:
  struct Node {
    uint32_t parent = 0;
    int32_t cached = -1;  // the cached tenant (may no longer hold the node)
    uint64_t serial = 0;  // creation order
    std::vector<uint32_t> label;
    std::vector<uint32_t> children;
    std::vector<std::pair<uint32_t, uint64_t>> tenants;  // (worker, time), by worker
  };
  static uint64_t Key(uint32_t node, uint32_t first) {
    return static_cast<uint64_t>(node) << 32 | first;
  }
  uint64_t Units(const Node& n, size_t len) const;
  uint32_t Child(uint32_t node, uint32_t first) const;
  uint32_t NewNode(uint32_t parent);
  static uint64_t* TimeOf(Node& n, uint32_t tenant);
  static bool Holds(const Node& n, uint32_t tenant);
  void SetTime(Node& n, uint32_t tenant, uint64_t time);
  bool ChildHolds(const Node& n, uint32_t tenant) const;
  void RemoveNode(uint32_t id);

  uint32_t workers_;
  uint32_t block_limit_;
  uint64_t block_units_;
  std::vector<Node> nodes_;  // 0 = the root
  std::vector<uint32_t> free_;
  absl::flat_hash_map<uint64_t, uint32_t> child_;  // (node, first label) -> child
  std::vector<uint64_t> size_;                     // per tenant, units
  uint64_t epoch_ = 0;
  uint64_t serial_ = 0;
};

}  // namespace ltl
