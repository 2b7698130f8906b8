// ReplayOptimalAt: Belady's optimal replacement with bypass, on the prefix tree, at one capacity.
// Each request's hit is its leading run of cached blocks; then its missing blocks are considered
// head first. A block is inserted only when its parent (Trace::parent) is cached. When the cache is
// full, the victim is the evictable leaf (no cached child, not on the current request's path) whose
// next use is furthest away, ties going to the block first seen most recently (highest dense id);
// if the new block's own next use is no sooner than the victim's, the block is not inserted and the
// request stops inserting. Cached blocks of the request take their new next use as their key.
// See docs/SEMANTICS.md for when this is provably optimal.
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/replay_options.h"
#include "simulate/replay_tally.h"
#include "simulate/trace.h"

namespace ltl {

// `next_use` is ComputeNextUse(trace), shared by every capacity. `hit_blocks`, when given,
// receives every request's hit length in blocks (measured or not).
ReplayResult ReplayOptimalAt(const Trace& trace, const std::vector<uint32_t>& next_use,
                             uint64_t capacity_blocks, const ReplayOptions& options,
                             std::vector<uint32_t>* hit_blocks = nullptr);

}  // namespace ltl
