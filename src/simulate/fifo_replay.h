// ReplayFifoAt: one FIFO replay at one capacity. Each request's hit is its leading run of cached
// blocks; then its missing blocks are inserted head first, and when the cache is full the block
// inserted longest ago is evicted before each insertion. Hits do not refresh a block.
#pragma once

#include <cstdint>
#include <vector>

#include "simulate/replay_options.h"
#include "simulate/replay_tally.h"
#include "simulate/trace.h"

namespace ltl {

// `hit_blocks`, when given, receives every request's hit length in blocks (measured or not).
ReplayResult ReplayFifoAt(const Trace& trace, uint64_t capacity_blocks,
                          const ReplayOptions& options,
                          std::vector<uint32_t>* hit_blocks = nullptr);

}  // namespace ltl
