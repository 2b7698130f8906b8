// The "radix-lru" eviction policy (alias "sglang"): SGLang's radix-tree LRU as kvcache.ai's
// kvcache-simulator replays it (radix_lru_replay.h). One replay per capacity.
//
// Rules, read from the sources:
// - kvcache-simulator, packages/kvcache-simulator/src/kvcache_sim/policies.py,
//   simulate_trie_policy(optimal=False) (kvcache-ai/kvcache-blog's package as mirrored in
//   chenyimingcym-oss/kvcache-hit-rate at commit cc65f74e69174eaadf434ceebed799f63a9ac687;
//   its trie: resources/kv-cache-lab-native-sim.cc build_prefix_plan, commit
//   57c38561a9f3aa334ccd2bae05c60019bbf7e6d7):
//   * the tree is a trie of (parent node, hash id) edges; node 0, the root, is always present;
//   * hit = the leading run of present nodes; each hit node, head first, gets the next value of a
//     clock incremented per access ("touch"), so deeper nodes are more recent and no two nodes
//     ever share a time;
//   * then every present node of the request is protected (mark_protected_path) until the next
//     request: protection is per request, released when the next request starts;
//   * missing nodes are inserted head first: when the cache is full, evict_leaf pops the heap of
//     (time, -node) and evicts the first present, childless, unprotected, current entry (the least
//     recently accessed unlocked leaf; equal times cannot occur); a parent whose last cached child
//     went becomes a candidate with its own last time; if no leaf can be evicted, or the parent
//     of the node to insert is not present (it may just have been evicted), insertion stops;
//   * an inserted node is touched (it becomes the most recent).
// - SGLang, python/sglang/srt/mem_cache/radix_cache.py (sgl-project/sglang at commit
//   006b0e3d317f1cd4a7300e919a4eaa878b1947e7): evict() heapifies evictable_leaves by
//   last_access_time (LRUStrategy) and pushes a parent once it has no children and lock_ref 0;
//   _match_prefix_helper stamps every node on the matched path with one time.monotonic(); a
//   scheduled request holds inc_lock_ref(last_node) on its matched path until cache_finished_req
//   calls dec_lock_ref. The simulator models one request running at a time, per block (a page),
//   with a strictly increasing clock; SGLang's nodes are compressed runs of pages sharing one
//   time, and several requests may hold locks at once.
#include "simulate/eviction_policy.h"
#include "simulate/radix_lru_replay.h"

namespace ltl {
namespace {

// Fleets would need the tree per worker: not online yet.
class RadixLruPolicy final : public PreparedReplayPolicy<RadixNodes> {
 public:
  std::string_view name() const override { return "radix-lru"; }
  std::string_view summary() const override {
    return "SGLang's radix-tree LRU: least recent unlocked leaf (kvcache-simulator's lru)";
  }
  std::vector<std::string_view> aliases() const override { return {"sglang"}; }

 private:
  RadixNodes PrepareData(const Trace& trace) const override { return ComputeRadixNodes(trace); }
  ReplayResult ReplayAt(const Trace& trace, const RadixNodes& nodes, uint64_t capacity_blocks,
                        const ReplayOptions& options) const override {
    return ReplayRadixLruAt(trace, nodes, capacity_blocks, options);
  }
};

}  // namespace

const EvictionPolicy& RadixLruEviction() {
  static const RadixLruPolicy policy;
  return policy;
}

}  // namespace ltl
