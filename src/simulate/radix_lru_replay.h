// ReplayRadixLruAt: the radix-tree LRU of SGLang's RadixCache as kvcache.ai's kvcache-simulator
// replays it (its "lru" policy), at one capacity. The cache is a prefix tree of blocks; only
// leaves (no cached child) are evicted, least recently accessed first; the blocks the running
// request found cached are locked for the whole request; its missing blocks are inserted head
// first, each only while its parent is cached, and insertion stops at the first block that finds
// no unlocked leaf to evict. Exact rules and sources: docs/SEMANTICS.md, eviction_radix_lru.cc.
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/replay_options.h"
#include "simulate/replay_tally.h"
#include "simulate/trace.h"

namespace ltl {

// The prefix tree's nodes for each block access. When every request's blocks follow
// Trace::parent (block 0 a root, block j's parent block j-1: chained ids), the dense ids already
// are the tree's nodes and `nodes` stays empty. Otherwise a block reached through two different
// prefixes is two nodes, as in the simulator's trie: `nodes[r.first + j]` is request r's j-th node.
struct RadixNodes {
  std::vector<uint32_t> nodes;
  uint32_t num_nodes = 0;
};

RadixNodes ComputeRadixNodes(const Trace& trace);

// Hit tokens over the measured requests at `capacity_blocks`.
ReplayResult ReplayRadixLruAt(const Trace& trace, const RadixNodes& nodes, uint64_t capacity_blocks,
                              const ReplayOptions& options);

}  // namespace ltl
