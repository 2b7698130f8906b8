// FIFO replay over a ring buffer of insertion order and a presence bit per dense block id:
// O(1) per block access, memory ~5 bytes per distinct block.
#include "simulate/fifo_replay.h"

#include <algorithm>

namespace ltl {

ReplayResult ReplayFifoAt(const Trace& trace, uint64_t capacity_blocks,
                          const ReplayOptions& options, std::vector<uint32_t>* hit_blocks) {
  ReplayTally tally(trace, capacity_blocks, options);
  std::vector<uint8_t> cached(trace.num_blocks, 0);
  // The cache never holds more than num_blocks blocks, so the ring needs no more slots than that.
  const uint64_t ring_size = std::min<uint64_t>(capacity_blocks, trace.num_blocks);
  std::vector<uint32_t> ring(ring_size);
  uint64_t head = 0;  // slot of the oldest insertion
  uint64_t size = 0;
  if (hit_blocks) hit_blocks->assign(trace.requests.size(), 0);

  BlockCursor cursor(trace);
  for (size_t i = 0; i < trace.requests.size(); ++i) {
    const TraceRequest& r = trace.requests[i];
    const uint32_t* ids = cursor.Blocks(r);
    const bool measured = tally.Begin(i, size);
    uint32_t k = 0;
    while (k < r.num_blocks && cached[ids[k]]) ++k;
    if (measured) tally.AddHit(r, ids, k);
    if (hit_blocks) (*hit_blocks)[i] = k;
    if (capacity_blocks > 0) {
      for (uint32_t j = 0; j < r.num_blocks; ++j) {
        const uint32_t b = ids[j];
        if (cached[b]) continue;  // present now (a hit, or a repeat inserted earlier)
        if (size == capacity_blocks) {
          cached[ring[head]] = 0;
          head = head + 1 == ring_size ? 0 : head + 1;
          --size;
        }
        uint64_t slot = head + size;
        if (slot >= ring_size) slot -= ring_size;
        ring[slot] = b;
        cached[b] = 1;
        ++size;
      }
    }
    tally.End(r, ids);
  }
  return tally.Finish(size);
}

}  // namespace ltl
