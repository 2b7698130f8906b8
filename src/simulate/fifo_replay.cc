// ReplayFifoAt: the "fifo" policy's online cache (eviction_fifo.cc, fifo_cache.h) replayed over
// the whole trace with every block id dense.
#include "simulate/fifo_replay.h"

#include "simulate/eviction_policy.h"

namespace ltl {

ReplayResult ReplayFifoAt(const Trace& trace, uint64_t capacity_blocks,
                          const ReplayOptions& options, std::vector<uint32_t>* hit_blocks) {
  return ReplayOnlineCache(trace, capacity_blocks, options,
                           FifoEviction().MakeCache(capacity_blocks, trace.num_blocks).get(),
                           hit_blocks);
}

}  // namespace ltl
